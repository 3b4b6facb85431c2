import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema/index.ts';

export type Schema = typeof schema;
export type Db = NodePgDatabase<Schema> & { $client: pg.Pool };

/** One pool per process; drizzle for queries, the raw pool for advisory locks and SKIP LOCKED. */
export type Database = { db: Db; pool: pg.Pool; close(): Promise<void> };

// int8 (bigint) columns come back as strings from pg by default; we keep them exact as bigint.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => BigInt(value));

/**
 * How long the service waits on its database before it calls it unavailable (docs/adr/0059): every
 * wait is bounded, so a primary that died or froze answers a request with 503 `database_unavailable`
 * within seconds instead of holding it. The defaults suit a Patroni cluster behind HAProxy, whose
 * failover takes 10-30 s: a request fails fast and its client retries with the same Idempotency-Key.
 */
export type DatabaseTimeouts = {
  /** A new connection (TCP, TLS, start-up) must be up within this. */
  connectMs: number;
  /** PostgreSQL's statement_timeout for every statement of the pool. */
  statementMs: number;
  /** PostgreSQL's idle_in_transaction_session_timeout: a transaction left open by a stalled process ends. */
  idleInTransactionMs: number;
  /** The client-side bound on one query (a server that froze answers nothing, not even the statement timeout). */
  queryMs: number;
  /** TCP keepalive: a peer that vanished without closing (a cut network) is found after about this. */
  keepAliveMs: number;
};

// The statement bound follows docs/operations.md (rekey batches and retention deletes run long on
// big tables); on a primary that froze or whose network was cut, HAProxy's `on-marked-down
// shutdown-sessions` ends the connections within its health check, long before it.
export const DEFAULT_TIMEOUTS: DatabaseTimeouts = {
  connectMs: 5_000,
  statementMs: 300_000,
  idleInTransactionMs: 60_000,
  queryMs: 305_000,
  keepAliveMs: 10_000,
};

/** The pg connection settings for these timeouts (shared by the pool, pg-boss and dedicated clients). */
export function connectionSettings(url: string, timeouts: DatabaseTimeouts = DEFAULT_TIMEOUTS): pg.ClientConfig {
  return {
    connectionString: url,
    application_name: 'payops',
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    query_timeout: timeouts.queryMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: timeouts.keepAliveMs,
  };
}

export function openPool(url: string, max = 10, timeouts: DatabaseTimeouts = DEFAULT_TIMEOUTS): Database {
  const pool = new pg.Pool({ ...connectionSettings(url, timeouts), max, idleTimeoutMillis: 30_000 });
  // A connection lost while idle: the pool drops it and the next query opens a new one.
  pool.on('error', () => {});
  // A connection lost while checked out (a transaction, the submit batcher, a migration): pg emits
  // 'error' on that client, which with no listener ends the process. The statement in flight is
  // rejected anyway (and answered 503 database_unavailable); the pool discards the client on
  // release because it is no longer queryable.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  const db = drizzle(pool, { schema });
  return { db, pool, close: () => pool.end() };
}
