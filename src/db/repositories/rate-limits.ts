import { sql } from 'drizzle-orm';
import type { Executor } from '../executor.ts';

/**
 * Fixed-window counters shared by every API process (DESIGN.md). Keys are not tenant data: they name
 * a limit and what it counts (an address, an email digest, a company), so these queries are global.
 */
export type WindowCount = { hits: number; resetAt: Date };

/** Counts one hit for `key` in its current window (a new window when the last one ended). One statement: safe under concurrency. */
export async function countHit(q: Executor, key: string, windowMs: number, now: Date): Promise<WindowCount> {
  const at = now.toISOString();
  const end = new Date(now.getTime() + windowMs).toISOString();
  const result = await q.execute<{ hits: number; expires_at: string | Date }>(sql`
    INSERT INTO rate_limit_counters AS c (key, hits, window_start, expires_at)
    VALUES (${key}, 1, ${at}::timestamptz, ${end}::timestamptz)
    ON CONFLICT (key) DO UPDATE SET
      hits = CASE WHEN c.expires_at <= ${at}::timestamptz THEN 1 ELSE c.hits + 1 END,
      window_start = CASE WHEN c.expires_at <= ${at}::timestamptz THEN ${at}::timestamptz ELSE c.window_start END,
      expires_at = CASE WHEN c.expires_at <= ${at}::timestamptz THEN ${end}::timestamptz ELSE c.expires_at END
    RETURNING hits, expires_at`);
  const row = result.rows[0]!;
  return { hits: Number(row.hits), resetAt: new Date(row.expires_at) };
}

/** The hits of `key` in its current window, without counting one (zero when none is running). */
export async function peekHits(q: Executor, key: string, now: Date): Promise<WindowCount> {
  const result = await q.execute<{ hits: number; expires_at: string | Date }>(sql`
    SELECT hits, expires_at FROM rate_limit_counters WHERE key = ${key} AND expires_at > ${now.toISOString()}::timestamptz`);
  const row = result.rows[0];
  return row ? { hits: Number(row.hits), resetAt: new Date(row.expires_at) } : { hits: 0, resetAt: now };
}

/** Takes back one hit of the current window (a successful login does not count against its account). */
export async function uncountHit(q: Executor, key: string, now: Date): Promise<void> {
  await q.execute(sql`
    UPDATE rate_limit_counters SET hits = hits - 1
     WHERE key = ${key} AND hits > 0 AND expires_at > ${now.toISOString()}::timestamptz`);
}

/** Ends the window of `key` (a right second-factor code clears the wrong ones before it). */
export async function deleteCounter(q: Executor, key: string): Promise<void> {
  await q.execute(sql`DELETE FROM rate_limit_counters WHERE key = ${key}`);
}

/** Removes counters whose window ended before `before` (housekeeping). Answers how many. */
export async function deleteExpiredCounters(q: Executor, before: Date, limit: number): Promise<number> {
  const result = await q.execute(sql`
    DELETE FROM rate_limit_counters WHERE key IN (
      SELECT key FROM rate_limit_counters WHERE expires_at < ${before.toISOString()}::timestamptz LIMIT ${limit})`);
  return result.rowCount ?? 0;
}
