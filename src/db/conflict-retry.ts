import type { Db } from './client.ts';
import type { Tx } from './executor.ts';

/** SQLSTATEs after which the whole transaction may simply run again: nothing of it was committed. */
const RETRYABLE = { '40001': 'serialization failure', '40P01': 'deadlock detected' } as const;
type ConflictCode = keyof typeof RETRYABLE;

function conflictCodeOf(error: unknown): ConflictCode | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  return code === '40001' || code === '40P01' ? code : undefined;
}

/**
 * A transaction that lost to another on a lock cycle or a serialization conflict every time it was
 * tried: names what ran (`label`), the SQLSTATE and its meaning, so a delivery left retrying says
 * why instead of a bare driver message.
 */
export class TransactionConflictError extends Error {
  readonly code: ConflictCode;
  readonly attempts: number;
  constructor(label: string, code: ConflictCode, attempts: number, cause: unknown) {
    super(`${label}: ${RETRYABLE[code]} (SQLSTATE ${code}) in each of ${attempts} attempts`, { cause });
    this.name = 'TransactionConflictError';
    this.code = code;
    this.attempts = attempts;
  }
}

/**
 * Runs `work` in a transaction and runs it again (after a short randomised pause) when PostgreSQL
 * ended it with a deadlock (40P01) or a serialization failure (40001). The pipeline takes its locks
 * in one order (docs/adr/0012, 0013), so a conflict is rare; this makes one that happens anyway
 * (a foreign writer, a lock PostgreSQL takes on its own) a delay instead of a failed attempt.
 * `work` must be safe to run again: everything it wrote was rolled back.
 */
export async function transactionWithRetry<T>(
  db: Db,
  label: string,
  work: (tx: Tx) => Promise<T>,
  options: { attempts?: number; random?: () => number } = {},
): Promise<T> {
  const attempts = options.attempts ?? 4;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work);
    } catch (error) {
      const code = conflictCodeOf(error);
      if (!code) throw error;
      if (attempt >= attempts) throw new TransactionConflictError(label, code, attempt, error);
      await new Promise((resolve) => setTimeout(resolve, 5 * 2 ** attempt * (0.5 + random())));
    }
  }
}
