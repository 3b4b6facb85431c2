import { isReturn, matchEntries } from './match-entries.ts';
import { type BookingEvidence, bookingEvidence, type EvidenceSource } from './statement-entries.ts';
import type { MatchRule, ReconEntry, ReconLine } from './types.ts';

/** What matching a statement's entries against open lines found, with each match's evidence made. */
export type StatementMatchOutcome = {
  matches: { line: number; rule: MatchRule; evidence: BookingEvidence }[];
  ambiguous: { line: number; reason: string }[];
  /**
   * An entry is left, neither matched nor ambiguous, that a rule after the end-to-end id may still
   * match (every such rule takes debits or reversals): matched against the lines the entries name,
   * the statement then needs every open line (reconcileStatement, docs/adr/0013).
   */
  left: boolean;
};

/** The outcome, and the entries that matched no line with the ambiguity that stopped them, if any (kept where the entries are). */
export type StatementMatch = StatementMatchOutcome & { unmatched: Map<number, string | null> };

/**
 * Matches the booked entries of one statement against the candidate lines and makes the evidence of
 * each match from the transaction it came from. Pure, so it runs where the entries are: in the
 * ingest's file worker for a large file, in the caller's thread for a small one.
 */
export function matchStatement(
  lines: readonly ReconLine[],
  entries: readonly ReconEntry[],
  sources: readonly EvidenceSource[],
  context: { source: string; documentId: string },
): StatementMatch {
  const result = matchEntries(lines, entries);
  const unmatched = new Map<number, string | null>(result.unmatchedEntries.map((e) => [e, null]));
  for (const a of result.ambiguous) if (unmatched.get(a.entry) === null) unmatched.set(a.entry, a.reason);
  const ambiguousEntries = new Set(result.ambiguous.map((a) => a.entry));
  return {
    unmatched,
    matches: result.matches.map((m) => ({
      line: m.line,
      rule: m.rule,
      evidence: bookingEvidence(sources[m.entry]!, entries[m.entry]!, {
        ...context,
        rule: m.rule,
        ...(m.by ? { matchedBy: m.by } : {}),
      }),
    })),
    ambiguous: result.ambiguous.map((a) => ({ line: a.line, reason: a.reason })),
    left: result.unmatchedEntries.some((e) => {
      const entry = entries[e]!;
      return !ambiguousEntries.has(e) && (entry.direction === 'debit' || entry.reversal);
    }),
  };
}

/** Beyond this many distinct end-to-end ids a statement reads every open line at once (no list to ship). */
const NAMED_LOOKUP_MAX = 5000;

/**
 * The distinct end-to-end ids a statement's entries carry, for the first candidate lookup (the open
 * lines they name, through payment_lines_e2e_idx), collected as the entries stream by (credits too,
 * which the file worker does not keep): `list` is null when there are none or more than
 * NAMED_LOOKUP_MAX (a statement that large is matched against every open line anyway).
 */
export class NamedEndToEndIds {
  private ids: Set<string> | null = new Set();

  add(entry: ReconEntry): void {
    const id = entry.endToEndId;
    if (this.ids === null || id === null || id === '' || id === 'NOTPROVIDED') return;
    this.ids.add(id);
    if (this.ids.size > NAMED_LOOKUP_MAX) this.ids = null;
  }

  list(): string[] | null {
    return this.ids !== null && this.ids.size > 0 ? [...this.ids] : null;
  }
}

/** A return that names no identifier: what its candidate lines are looked up by (docs/adr/0070). */
export type UnidentifiedReturn = {
  counterpartyIban: string;
  currency: string;
  /** The booked amount, and the instructed one when it differs. */
  amountsMinor: bigint[];
  /** YYYY-MM-DD: the booking date; candidates were executed within RETURN_WINDOW_DAYS before it. */
  bookingDate: string;
};

/**
 * What the statement's returns name, for the candidate lookup: lines already cleared (or returned)
 * are not open, so they are read by these (reconcileStatement, listReconCandidates).
 */
export type ReturnLookups = { endToEndIds: string[]; instructionIds: string[]; unidentified: UnidentifiedReturn[] };

const usableId = (id: string | null): id is string => id !== null && id !== '' && id !== 'NOTPROVIDED';

/** The statement's returns as lookups: by their identifiers, and the ones without any by amount and account. */
export function returnLookupsOf(entries: readonly ReconEntry[]): ReturnLookups {
  const out: ReturnLookups = { endToEndIds: [], instructionIds: [], unidentified: [] };
  for (const e of entries) {
    if (!isReturn(e) || e.batchWithoutDetails) continue;
    const e2e = usableId(e.endToEndId);
    const instr = usableId(e.instructionId);
    if (e2e) out.endToEndIds.push(e.endToEndId!);
    if (instr) out.instructionIds.push(e.instructionId!);
    if (e2e || instr || e.counterpartyIban === null || e.bookingDate === null || e.bookingDate.length < 10) continue;
    const amountsMinor = [e.amountMinor];
    if (e.originalAmountMinor != null && e.originalAmountMinor !== e.amountMinor)
      amountsMinor.push(e.originalAmountMinor);
    out.unidentified.push({
      counterpartyIban: e.counterpartyIban,
      currency: e.currency,
      amountsMinor,
      bookingDate: e.bookingDate.slice(0, 10),
    });
  }
  return out;
}

export const NO_RETURNS: ReturnLookups = { endToEndIds: [], instructionIds: [], unidentified: [] };
