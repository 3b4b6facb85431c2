import type { NormalisedStatement, StatementFileResult } from './types.ts';

/** The statements of the blocks that parsed, in file order (the `items` of POST /inbound/statement). */
export function statementsOf(result: StatementFileResult): NormalisedStatement[] {
  const out: NormalisedStatement[] = [];
  for (const b of result.blocks) if (b.ok) out.push(b.statement);
  return out;
}
