import { ChannelError } from '../errors.ts';

/**
 * Why a web-services call failed, and whether trying again can help: a bank refusal or a bad signature
 * will not heal by itself (permanent); a dropped connection or a bank's technical error may (retryable).
 */
export type WsErrorCode =
  | 'invalid_config'
  | 'not_activated'
  | 'transport'
  | 'timeout'
  | 'address_refused'
  | 'bad_response'
  | 'bank_refused'
  | 'signature_invalid';

export class WsChannelError extends ChannelError {
  declare readonly code: WsErrorCode;
  constructor(
    code: WsErrorCode,
    message: string,
    retryable: boolean,
    options: { bank?: { code: string; text: string }; cause?: unknown } = {},
  ) {
    super(code, message, retryable, options);
    this.name = 'WsChannelError';
  }
}
