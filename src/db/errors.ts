/** PostgreSQL unique violation (23505), whether raw from pg or wrapped by drizzle. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } } | null;
  return e?.code === '23505' || e?.cause?.code === '23505';
}

/**
 * SQLSTATEs that say the database (not the statement) is gone or not taking writes: the connection
 * exceptions (class 08), a backend terminated or a server shutting down or starting (57P01-57P03),
 * a standby where a primary was expected (25006: a stale route during a failover), too many
 * connections (53300), and a statement cut by statement_timeout (57014 with that message).
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '25006', '53300']);
/** Socket errors of a connection that could not be made or was cut. */
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** node-postgres, pg-pool and pg-boss (its LISTEN connection) say a connection is gone in words, with no code. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'not queryable',
  'canceling statement due to statement timeout',
  'the database system is',
  'is not currently accepting connections',
  'LISTEN/NOTIFY connection ended',
  'LISTEN/NOTIFY heartbeat timed out',
];

function unavailableOne(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_SOCKET_CODES.has(code)) return true;
  }
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m));
}

/**
 * Whether an error means the database could not be reached or went away mid-statement (docs/adr/0059),
 * looking through drizzle's and our own wrappers (`cause`) and a failed multi-address connect
 * (AggregateError). Such a transaction did not commit, or its commit was not confirmed: a client
 * retries it with the same Idempotency-Key.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  for (let e = queue.shift(); e !== undefined; e = queue.shift()) {
    if (seen.has(e) || seen.size > 8) continue;
    seen.add(e);
    if (unavailableOne(e)) return true;
    const { cause, errors } = (e ?? {}) as { cause?: unknown; errors?: unknown };
    if (cause !== undefined) queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return false;
}
