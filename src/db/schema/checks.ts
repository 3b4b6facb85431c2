import { type SQL, sql } from 'drizzle-orm';

/**
 * `column IN ('a', 'b' ...)` from a status list of the state machine (src/domain/lifecycle): the CHECK
 * constraint and the TypeScript union come from the same list. NULL passes, as for any CHECK; the
 * column's NOT NULL says whether it may be absent. The values are constants of our own, never input.
 */
export function oneOf(column: string, values: readonly string[]): SQL {
  return sql.raw(`${column} IN (${values.map((v) => `'${v}'`).join(', ')})`);
}
