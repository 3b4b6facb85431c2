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

export class WsChannelError extends Error {
  readonly code: WsErrorCode;
  readonly retryable: boolean;
  /** The bank's own response code and words, for a refusal. */
  readonly bank: { code: string; text: string } | undefined;
  constructor(
    code: WsErrorCode,
    message: string,
    retryable: boolean,
    options: { bank?: { code: string; text: string }; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WsChannelError';
    this.code = code;
    this.retryable = retryable;
    this.bank = options.bank;
  }
}
