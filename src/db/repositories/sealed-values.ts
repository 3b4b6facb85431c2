import { sql } from 'drizzle-orm';
import type { Executor } from '../executor.ts';
import type { SealedColumn } from '../sealed-columns.ts';

/**
 * Reads and rewrites sealed values for key rotation (`npm run cli -- rekey`). Like the operations
 * statistics these run across tenants on purpose: rekeying is deployment-wide and touches only the
 * sealed column and its row's primary key.
 */
const t = (c: SealedColumn) => sql.identifier(c.table);
const col = (c: SealedColumn) => sql.identifier(c.column);
const key = (c: SealedColumn) => sql.identifier(c.key);

/** How many values of the column each key id sealed. */
export async function countByKeyId(q: Executor, c: SealedColumn): Promise<Map<string, number>> {
  const result = await q.execute<{ key_id: string; n: unknown }>(
    sql`SELECT split_part(${col(c)}, ':', 1) AS key_id, count(*) AS n FROM ${t(c)} WHERE ${col(c)} IS NOT NULL GROUP BY 1`,
  );
  return new Map(result.rows.map((r) => [r.key_id, Number(r.n)]));
}

/**
 * The next rows after `after` (primary-key order) whose value is not sealed under `keyId`: at most
 * `limit` rows and, past the first row, at most `maxBytes` of sealed text, so a batch of 10 MB files
 * stays small in memory.
 */
export async function nextSealedBatch(
  q: Executor,
  c: SealedColumn,
  keyId: string,
  after: string | null,
  limit: number,
  maxBytes: number,
): Promise<{ key: string; sealed: string }[]> {
  const notUnder = `${keyId}:%`;
  const sizes = await q.execute<{ key: string; size: unknown }>(sql`
    SELECT ${key(c)}::text AS key, octet_length(${col(c)}) AS size FROM ${t(c)}
     WHERE ${col(c)} IS NOT NULL AND ${col(c)} NOT LIKE ${notUnder}
       ${after === null ? sql`` : sql`AND ${key(c)} > ${after}`}
     ORDER BY ${key(c)} LIMIT ${limit}`);
  const keys: string[] = [];
  let bytes = 0;
  for (const row of sizes.rows) {
    bytes += Number(row.size);
    if (keys.length > 0 && bytes > maxBytes) break;
    keys.push(row.key);
  }
  if (keys.length === 0) return [];
  const rows = await q.execute<{ key: string; sealed: string }>(sql`
    SELECT ${key(c)}::text AS key, ${col(c)} AS sealed FROM ${t(c)}
     WHERE ${key(c)} = ANY(${sql.param(keys)}::text[]) AND ${col(c)} NOT LIKE ${notUnder} ORDER BY ${key(c)}`);
  return rows.rows;
}

/**
 * Writes re-sealed values, each only if the row still holds the value that was read (a process that
 * changed it meanwhile wins; its value is already under its own key). Answers how many were written.
 */
export async function replaceSealed(
  q: Executor,
  c: SealedColumn,
  changes: { key: string; from: string; to: string }[],
): Promise<number> {
  if (changes.length === 0) return 0;
  const result = await q.execute(sql`
    UPDATE ${t(c)} AS target SET ${col(c)} = v.sealed_to
      FROM unnest(${sql.param(changes.map((x) => x.key))}::text[], ${sql.param(changes.map((x) => x.from))}::text[],
                  ${sql.param(changes.map((x) => x.to))}::text[]) AS v(key, sealed_from, sealed_to)
     WHERE target.${key(c)} = v.key AND target.${col(c)} = v.sealed_from`);
  return result.rowCount ?? 0;
}
