import type { ConnectionRow } from '../../db/repositories/connections.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';

/** A channel error as the use cases read it: its code, whether a retry can help, and the bank's words. */
export type ChannelFailure = {
  code: string;
  retryable: boolean;
  bank?: { code: string; text: string };
  message: string;
};

export function channelFailureOf(error: unknown): ChannelFailure {
  const e = error as { code?: unknown; retryable?: unknown; bank?: { code: string; text: string }; message?: unknown };
  return {
    code: typeof e?.code === 'string' ? e.code : 'error',
    retryable: e?.retryable !== false,
    ...(e?.bank ? { bank: e.bank } : {}),
    message: typeof e?.message === 'string' ? e.message : String(error),
  };
}

/**
 * Fail closed, visibly: a bank answer whose signature does not verify against the pinned certificate
 * is not used, and says so in the audit trail (`connection.signature_refused`) and at warn in the log.
 */
export async function reportSignatureRefusal(
  ctx: AppContext,
  connection: ConnectionRow,
  operation: string,
  failure: ChannelFailure,
  about: Record<string, unknown> = {},
): Promise<void> {
  ctx.logger.warn(
    { connectionId: connection.id, bankKey: connection.bankKey, operation, reason: failure.message, ...about },
    'bank answer refused: signature does not verify against the pinned certificate',
  );
  await ctx.db.transaction(async (tx) => {
    await recordEvent(ctx, tx, {
      platformId: connection.platformId,
      companyId: connection.companyId,
      type: 'connection.signature_refused',
      message: `${operation} answer from ${connection.bankKey} refused: ${failure.message}`,
      metadata: { connectionId: connection.id, operation, reason: failure.message, ...about },
      bankKey: connection.bankKey,
      environment: connection.environment,
      connectionId: connection.id,
    });
  });
}
