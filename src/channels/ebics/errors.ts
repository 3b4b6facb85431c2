import { returnCodeInfo } from '../../domain/ebics/return-codes.ts';
import { ChannelError } from '../errors.ts';

/**
 * Why an EBICS call failed (src/channels/errors.ts): the bank's return code decides retryable or
 * permanent (Annex 1, src/domain/ebics/return-codes.ts) and travels as `bank` {code, text}, so the
 * document's delivery shows what the bank said. `bank_keys_changed` (EBICS_BANK_PUBKEY_UPDATE_REQUIRED)
 * is its own code: the connection waits for an admin to confirm the bank's new keys.
 */
export type EbicsErrorCode =
  | 'invalid_config'
  | 'bad_response'
  | 'bank_refused'
  | 'bank_error'
  | 'signature_invalid'
  | 'bank_keys_changed';

export class EbicsChannelError extends ChannelError {
  declare readonly code: EbicsErrorCode;
  constructor(
    code: EbicsErrorCode,
    message: string,
    retryable: boolean,
    options: { bank?: { code: string; text: string }; cause?: unknown } = {},
  ) {
    super(code, message, retryable, options);
    this.name = 'EbicsChannelError';
  }
}

/** The channel error for a return code that is not an `ok` one. */
export function returnCodeError(step: string, code: string, text: string): EbicsChannelError {
  const info = returnCodeInfo(code);
  const bank = { code, text: text || info.name };
  if (code === '091008') {
    return new EbicsChannelError('bank_keys_changed', `${step}: ${info.meaning} (${code} ${info.name})`, false, {
      bank,
    });
  }
  return new EbicsChannelError(
    info.class === 'retryable' ? 'bank_error' : 'bank_refused',
    `${step}: the bank answered ${code} ${info.name}: ${info.meaning}`,
    info.class === 'retryable',
    { bank },
  );
}
