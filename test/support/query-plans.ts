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
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Rows Removed by Join Filter'?: number;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
};

export type PlanFinding = { node: string; relation?: string; rows: number };

function walk(node: PlanNode, out: PlanNode[]): void {
  out.push(node);
  for (const child of node.Plans ?? []) walk(child, out);
}

/**
 * The plan PostgreSQL picks for a statement with sequential scans disabled, run (EXPLAIN ANALYZE): a
 * sequential scan that remains means no index can serve the statement at all.
 */
export async function explain(client: pg.ClientBase, statement: Statement): Promise<PlanNode[]> {
  await client.query('SET enable_seqscan = off');
  try {
    const result = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
      statement.values,
    );
    const nodes: PlanNode[] = [];
    walk(result.rows[0]!['QUERY PLAN'][0]!.Plan, nodes);
    return nodes;
  } finally {
    await client.query('RESET enable_seqscan');
  }
}

/** The conditions the statement gave `index` in the scans of it that ran (not in a skipped branch). */
export function indexConditions(nodes: PlanNode[], index: string): string[] {
  return nodes
    .filter((n) => n['Index Name'] === index && (n['Actual Loops'] ?? 0) > 0 && n['Index Cond'] !== undefined)
    .map((n) => n['Index Cond']!);
}

/** Rows a scan node read: those it gave plus those its filter or recheck dropped, over its loops. */
function examined(n: PlanNode): number {
  const rows = (n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0);
  return rows * (n['Actual Loops'] ?? 1);
}

/**
 * What makes a statement's cost grow with the company: sequential scans of the given relations, sorts
 * of more than `maxSorted` rows, more than `maxExamined` rows read by the scans of the relations, and
 * joins that test more than `maxExamined` pairs of rows.
 */
export function findings(
  nodes: PlanNode[],
  relations: ReadonlySet<string>,
  limits: { maxSorted: number; maxExamined: number },
): PlanFinding[] {
  const out: PlanFinding[] = [];
  let read = 0;
  for (const n of nodes) {
    const relation = n['Relation Name'];
    if (n['Node Type'] === 'Seq Scan' && relation && relations.has(relation))
      out.push({ node: 'Seq Scan', relation, rows: examined(n) });
    // What a sort took in (a top-N sort gives back only its page).
    const sorted = (n.Plans ?? []).reduce((s, c) => s + (c['Actual Rows'] ?? 0) * (c['Actual Loops'] ?? 1), 0);
    if (n['Node Type'] === 'Sort' && sorted > limits.maxSorted) out.push({ node: 'Sort', rows: sorted });
    if (relation && relations.has(relation) && n['Node Type'] !== 'Bitmap Index Scan') read += examined(n);
    // A join that pairs rows by testing each pair: its cost is the product of its two sides.
    const paired = (n['Rows Removed by Join Filter'] ?? 0) * (n['Actual Loops'] ?? 1);
    if (paired > limits.maxExamined) out.push({ node: 'Join Filter', rows: paired });
  }
  if (read > limits.maxExamined) out.push({ node: 'rows examined', rows: read });
  return out;
}
