/**
 * Records the statements a request sends through the pool and explains them, for the list-route plan
 * test: which relations a plan reads by sequential scan, and which sorts it does over many rows.
 */
import type pg from 'pg';

export type Statement = { text: string; values: unknown[] };

/** Starts recording every query sent through `pool.query`; `stop()` answers what was sent. */
export function recordStatements(pool: pg.Pool): { stop(): Statement[] } {
  const seen: Statement[] = [];
  const original = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  const recording = (...args: unknown[]) => {
    const [first, second] = args;
    const text = typeof first === 'string' ? first : (first as { text?: string }).text;
    const values = (Array.isArray(second) ? second : (first as { values?: unknown[] }).values) ?? [];
    if (typeof text === 'string') seen.push({ text, values });
    return original(...args);
  };
  (pool as unknown as { query: unknown }).query = recording;
  return {
    stop() {
      (pool as unknown as { query: unknown }).query = original;
      return seen;
    },
  };
}

type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Plan Rows': number;
  Plans?: PlanNode[];
};

export type PlanFinding = { node: string; relation?: string; rows: number };

function walk(node: PlanNode, out: PlanNode[]): void {
  out.push(node);
  for (const child of node.Plans ?? []) walk(child, out);
}

/**
 * The plan PostgreSQL picks for a statement with sequential scans disabled: a sequential scan that
 * remains means no index can serve the statement at all. Sorts are reported with the rows they sort.
 */
export async function explain(client: pg.ClientBase, statement: Statement): Promise<PlanNode[]> {
  await client.query('SET enable_seqscan = off');
  try {
    const result = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (FORMAT JSON) ${statement.text}`,
      statement.values,
    );
    const nodes: PlanNode[] = [];
    walk(result.rows[0]!['QUERY PLAN'][0]!.Plan, nodes);
    return nodes;
  } finally {
    await client.query('RESET enable_seqscan');
  }
}

/** Sequential scans of the given relations, and sorts of more than `maxSorted` rows (estimated). */
export function findings(nodes: PlanNode[], relations: ReadonlySet<string>, maxSorted: number): PlanFinding[] {
  const out: PlanFinding[] = [];
  for (const n of nodes) {
    if (n['Node Type'] === 'Seq Scan' && n['Relation Name'] && relations.has(n['Relation Name']))
      out.push({ node: 'Seq Scan', relation: n['Relation Name'], rows: n['Plan Rows'] });
    if (n['Node Type'] === 'Sort' && n['Plan Rows'] > maxSorted) out.push({ node: 'Sort', rows: n['Plan Rows'] });
  }
  return out;
}
