import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema/index.ts';

export type Schema = typeof schema;
export type Db = NodePgDatabase<Schema> & { $client: pg.Pool };

/** One pool per process; drizzle for queries, the raw pool for advisory locks and SKIP LOCKED. */
export type Database = { db: Db; pool: pg.Pool; close(): Promise<void> };

// int8 (bigint) columns come back as strings from pg by default; we keep them exact as bigint.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => BigInt(value));

export function openPool(url: string, max = 10): Database {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000 });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const db = drizzle(pool, { schema });
  return { db, pool, close: () => pool.end() };
}
