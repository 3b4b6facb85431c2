/**
 * Why a channel operation failed, typed for the delivery use case: `retryable` failures (a dropped
 * connection, a timeout, the bank's technical error) may heal, so the delivery is tried again after
 * a backoff; permanent ones (authentication refused, configuration missing or invalid, the bank
 * refused the file, a signature that does not verify) will not, so the delivery ends at once with
 * the reason on the document. Every channel throws these; anything else is treated as retryable.
 */
export class ChannelError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  /** The bank's own response code and words, for a refusal. */
  readonly bank: { code: string; text: string } | undefined;
  constructor(
    code: string,
    message: string,
    retryable: boolean,
    options: { bank?: { code: string; text: string } | undefined; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ChannelError';
    this.code = code;
    this.retryable = retryable;
    this.bank = options.bank;
  }
}

/** A failure no retry can mend: missing or invalid configuration, refused credentials, a refused file. */
export function permanentChannelError(code: string, message: string): ChannelError {
  return new ChannelError(code, message, false);
}
