import type { LineState } from '../../domain/lifecycle/index.ts';

/**
 * A document's reconciliation state derived from its payment lines (matching itself is the
 * reconciliation context's): cleared when every line cleared, rejected when every line rejected,
 * pending otherwise (also while a document has no lines). The evidence is the latest line evidence.
 */
export type LineRecon = { state: LineState; evidence: Record<string, unknown> | null; at: Date };

export function reconStateOf(lineCount: number, cleared: number, rejected: number): LineState {
  if (lineCount > 0 && cleared === lineCount) return 'cleared';
  if (lineCount > 0 && rejected === lineCount) return 'rejected';
  return 'pending';
}

export function documentReconState(lines: readonly LineRecon[]) {
  let cleared = 0;
  let rejected = 0;
  let latest: LineRecon | undefined;
  for (const line of lines) {
    if (line.state === 'cleared') cleared++;
    else if (line.state === 'rejected') rejected++;
    if (line.evidence && (!latest || line.at.getTime() >= latest.at.getTime())) latest = line;
  }
  return {
    state: reconStateOf(lines.length, cleared, rejected),
    evidence: latest?.evidence ?? null,
    lines: { total: lines.length, cleared, rejected, pending: lines.length - cleared - rejected },
  };
}
