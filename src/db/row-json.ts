import { type Column, getTableColumns, is, SQL, type Table } from 'drizzle-orm';

/**
 * A row as JSON for jsonb_populate_record(set) in the store's SQL functions: keys are the table's
 * column names, dates ISO strings, bigints decimal strings. Every column is present, because a
 * missing key would be NULL there rather than the column's default: an absent value takes the
 * column's plain default, or NULL when the column allows it; a required column without one throws.
 */
const columnsOf = new WeakMap<Table, Array<[string, Column]>>();

export function rowJson(table: Table, values: Record<string, unknown>): Record<string, unknown> {
  let columns = columnsOf.get(table);
  if (!columns) {
    columns = Object.entries(getTableColumns(table));
    columnsOf.set(table, columns);
  }
  const out: Record<string, unknown> = {};
  for (const [key, column] of columns) {
    let value = values[key];
    if (value === undefined) {
      if (column.hasDefault && column.default !== undefined && !is(column.default, SQL)) value = column.default;
      else if (column.notNull) throw new Error(`${column.name} has no value`);
      else value = null;
    }
    out[column.name] = value instanceof Date ? value.toISOString() : typeof value === 'bigint' ? String(value) : value;
  }
  return out;
}
