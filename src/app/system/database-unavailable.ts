import { isDatabaseUnavailable } from '../../db/errors.ts';
import { AppError } from '../errors.ts';

/**
 * How long a client is told to wait before retrying when the database is unavailable: about the
 * time a Patroni failover takes to promote a standby (docs/operations.md, High availability).
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** 503 `database_unavailable`: the request's transaction did not commit, or its commit was not confirmed. */
export function databaseUnavailable(): AppError {
  return new AppError(
    'database_unavailable',
    'the database is unavailable; nothing of this request is known to be committed: retry it with the same Idempotency-Key',
    undefined,
    { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
  );
}

/** The 503 for an error that says the database went away (docs/adr/0059); undefined for any other error. */
export function databaseUnavailableOf(error: unknown): AppError | undefined {
  return error instanceof AppError || !isDatabaseUnavailable(error) ? undefined : databaseUnavailable();
}
