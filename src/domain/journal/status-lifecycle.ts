import { NOT_PROVIDED } from '../canonical/generated-instruction-id.ts';
import {
  documentTransition,
  evidenceRefusal,
  type LineState,
  lineTransition,
  type OutboundDocument,
  type OutboundStatus,
} from '../lifecycle/index.ts';

/**
 * How a pain.002 status report moves an outbound journal document and its payment lines
 * (DESIGN.md, "Lifecycle of an outbound document"; the moves themselves are the state machine's,
 * src/domain/lifecycle). Pure: the caller loads the document and lines, applies the returned changes
 * and records the audit events in one transaction.
 *
 * Per line, the most specific status wins: the transaction's own TxSts (matched by end-to-end id,
 * then instruction id), else its payment group's PmtInfSts (matched by PmtInfId = paymentId), else
 * the file's GrpSts. PART at group or file level carries no verdict of its own: lines are read from
 * their transactions. Line moves:
 *   ACSC, ACCC                         -> cleared
 *   RJCT, CANC                         -> rejected (reason code, description, AddtlInf kept as evidence)
 *   RCVD ACTC ACCP ACFC ACWC ACWP PDNG ACSP -> stays pending (evidence recorded)
 * A rejected line is final. A cleared line that is later rejected becomes rejected with
 * `lateRejection` in its evidence, but its document is not moved back from executed (issue 6 refines
 * reversals). Unknown status codes change nothing.
 *
 * Document status, derived from the lines afterwards (documentTransition, event `evidence`):
 *   a document that takes no evidence (terminal, awaiting approval, or host-to-host and never
 *   delivered) is not moved and the report is not applied to its lines;
 *   every line rejected                                -> rejected;
 *   no line pending and at least one cleared           -> executed;
 *   otherwise a converted-only converted document -> sent (the bank has the file), sent/executed unchanged.
 */

export type LifecycleLine = {
  index: number;
  endToEndId: string | null;
  instructionId: string | null;
  paymentId: string | null;
  amount: string;
  currency: string;
  state: LineState;
};

export type ReportReason = {
  code: string | null;
  proprietary: string | null;
  description: string | null;
  additionalInfo: string[];
};

export type ReportTransaction = {
  endToEndId: string | null;
  instructionId: string | null;
  originalAmount: string | null;
  currency: string | null;
  statusCode: string | null;
  reasons: ReportReason[];
};

export type ReportGroup = {
  paymentInfoId: string | null;
  statusCode: string | null;
  reasons: ReportReason[];
  transactions: ReportTransaction[];
};

export type LifecycleReport = {
  groupStatusCode: string | null;
  groupReasons: ReportReason[];
  paymentGroups: ReportGroup[];
  /** Transactions listed outside any group (some parsers list them flat as well). */
  extraTransactions: ReportTransaction[];
};

export type LineEvidence = {
  source: 'pain.002';
  summary: string;
  date: string | null;
  amount: string;
  currency: string;
  reason: string | null;
  addtlInf: string | null;
  documentId: string;
  statusCode: string;
  lateRejection?: true;
};

export type LineChange = {
  index: number;
  endToEndId: string | null;
  from: LineState;
  to: LineState;
  statusCode: string;
  evidence: LineEvidence;
};

export type LifecycleOutcome = {
  from: OutboundStatus;
  to: OutboundStatus;
  /** Every line whose state or evidence changes. */
  lineChanges: LineChange[];
  /** Lines whose state changed (pending -> cleared, ...). */
  transitions: LineChange[];
  lateRejections: number;
  /** Report transactions that name no line of the document. */
  unmatchedTransactions: number;
  /** Why the report was not applied to the document (terminal, awaiting approval, never delivered). */
  ignored: string | null;
};

const CLEARED = new Set(['ACSC', 'ACCC']);
const REJECTED = new Set(['RJCT', 'CANC']);
const PENDING = new Set(['RCVD', 'ACTC', 'ACCP', 'ACFC', 'ACWC', 'ACWP', 'PDNG', 'ACSP']);

const DESCRIPTIONS: Record<string, string> = {
  RCVD: 'received by the bank',
  ACTC: 'accepted after technical validation',
  ACCP: 'accepted (customer profile)',
  ACFC: 'accepted, funds checked',
  ACWC: 'accepted with change',
  ACWP: 'accepted without posting',
  PDNG: 'pending',
  ACSP: 'accepted, settlement in process',
  ACSC: 'settlement completed on the debtor account',
  ACCC: 'settlement completed on the creditor account',
  RJCT: 'rejected',
  CANC: 'cancelled',
};

/** The line state a status code moves to; undefined for a code that says nothing (PART, unknown). */
export function lineStateOf(code: string): LineState | undefined {
  if (CLEARED.has(code)) return 'cleared';
  if (REJECTED.has(code)) return 'rejected';
  if (PENDING.has(code)) return 'pending';
  return undefined;
}

type Verdict = { code: string; reasons: ReportReason[]; tx: ReportTransaction | null };

function verdictFor(tx: ReportTransaction | null, ...levels: Array<{ code: string | null; reasons: ReportReason[] }>) {
  if (tx?.statusCode && lineStateOf(tx.statusCode)) return { code: tx.statusCode, reasons: tx.reasons, tx };
  for (const level of levels) {
    if (level.code && lineStateOf(level.code)) {
      // A group-level verdict still carries the transaction's own reasons when it has some.
      const reasons = tx && tx.reasons.length > 0 ? tx.reasons : level.reasons;
      return { code: level.code, reasons, tx };
    }
  }
  return undefined;
}

function evidenceOf(
  verdict: Verdict,
  line: LifecycleLine,
  context: { documentId: string; date: string | null },
): LineEvidence {
  const reason = verdict.reasons.find((r) => r.code !== null || r.proprietary !== null);
  const reasonCode = reason ? (reason.code ?? reason.proprietary) : null;
  const addtl = verdict.reasons.flatMap((r) => r.additionalInfo).filter((s) => s !== '');
  const description = reason?.description ?? null;
  const parts = [verdict.code, reasonCode, description ?? DESCRIPTIONS[verdict.code] ?? null].filter(
    (p): p is string => p !== null && p !== '',
  );
  return {
    source: 'pain.002',
    summary: parts.join(' '),
    date: context.date,
    amount: verdict.tx?.originalAmount ?? line.amount,
    currency: verdict.tx?.currency ?? line.currency,
    reason: reasonCode,
    addtlInf: addtl.length > 0 ? addtl.join(' ') : null,
    documentId: context.documentId,
    statusCode: verdict.code,
  };
}

/** Applies one pain.002 to a document's status and lines; see the module comment for the rules. */
export function applyStatusReport(
  document: OutboundDocument,
  lines: LifecycleLine[],
  report: LifecycleReport,
  context: { documentId: string; date: string | null },
): LifecycleOutcome {
  const { verdicts, unmatchedTransactions } = verdictsOf(report, lines);
  const ignored = evidenceRefusal(document) ?? null;
  const { lineChanges, lateRejections, finalState } = lineChangesOf(lines, verdicts, ignored, context);
  const from = document.status;
  const moved =
    ignored === null && verdicts.size > 0
      ? documentTransition(document, { type: 'evidence', lines: [...finalState.values()] })
      : undefined;
  return {
    from,
    to: moved?.ok ? moved.to : from,
    lineChanges,
    transitions: lineChanges.filter((c) => c.from !== c.to),
    lateRejections,
    unmatchedTransactions,
    ignored,
  };
}

/** The report's transaction's line: by end-to-end id, else by instruction id. */
function lineFinder(lines: LifecycleLine[]): (tx: ReportTransaction) => LifecycleLine | undefined {
  // NOTPROVIDED (EPC132-08 AT-41) names no line: several share it, and the bank's echo of it says which
  // line only through its OrgnlInstrId (the client's or the one generated for it, generatedInstructionId).
  const byE2e = new Map<string, LifecycleLine>();
  const byInstr = new Map<string, LifecycleLine>();
  for (const line of lines) {
    if (line.endToEndId && line.endToEndId !== NOT_PROVIDED) byE2e.set(line.endToEndId, line);
    if (line.instructionId) byInstr.set(line.instructionId, line);
  }
  return (tx) =>
    (tx.endToEndId && tx.endToEndId !== NOT_PROVIDED ? byE2e.get(tx.endToEndId) : undefined) ??
    (tx.instructionId ? byInstr.get(tx.instructionId) : undefined);
}

/**
 * The most specific verdict per line: its transaction's in its group, then a transaction outside any
 * group, then its payment group's, then the file's; and how many transactions named no line.
 */
function verdictsOf(
  report: LifecycleReport,
  lines: LifecycleLine[],
): { verdicts: Map<number, Verdict>; unmatchedTransactions: number } {
  const lineOf = lineFinder(lines);
  const verdicts = new Map<number, Verdict>();
  let unmatchedTransactions = 0;
  const fileLevel = { code: report.groupStatusCode, reasons: report.groupReasons };
  const groupOfLine = new Map<number, ReportGroup>();
  for (const group of report.paymentGroups) {
    if (group.paymentInfoId === null) continue;
    for (const line of lines) if (line.paymentId === group.paymentInfoId) groupOfLine.set(line.index, group);
  }
  const seenTx = new Set<ReportTransaction>();
  for (const group of report.paymentGroups) {
    for (const tx of group.transactions) {
      seenTx.add(tx);
      const line = lineOf(tx);
      if (!line) {
        unmatchedTransactions++;
        continue;
      }
      const verdict = verdictFor(tx, { code: group.statusCode, reasons: group.reasons }, fileLevel);
      if (verdict) verdicts.set(line.index, verdict);
    }
  }
  for (const tx of report.extraTransactions) {
    if (seenTx.has(tx)) continue;
    const line = lineOf(tx);
    if (!line) {
      unmatchedTransactions++;
      continue;
    }
    if (verdicts.has(line.index)) continue;
    const verdict = verdictFor(tx, fileLevel);
    if (verdict) verdicts.set(line.index, verdict);
  }
  for (const line of lines) {
    if (verdicts.has(line.index)) continue;
    const group = groupOfLine.get(line.index);
    const verdict = group
      ? verdictFor(null, { code: group.statusCode, reasons: group.reasons }, fileLevel)
      : verdictFor(null, fileLevel);
    if (verdict) verdicts.set(line.index, verdict);
  }
  return { verdicts, unmatchedTransactions };
}

/** Each line's move under its verdict (none when the document refuses evidence), and every line's state after. */
function lineChangesOf(
  lines: LifecycleLine[],
  verdicts: Map<number, Verdict>,
  ignored: LifecycleOutcome['ignored'],
  context: { documentId: string; date: string | null },
): { lineChanges: LineChange[]; lateRejections: number; finalState: Map<number, LineState> } {
  const lineChanges: LineChange[] = [];
  let lateRejections = 0;
  const finalState = new Map<number, LineState>();
  for (const line of lines) {
    finalState.set(line.index, line.state);
    const verdict = verdicts.get(line.index);
    if (ignored !== null || !verdict) continue;
    const move = lineTransition(line.state, { type: 'report', verdict: lineStateOf(verdict.code)! });
    if (!move.ok) continue;
    const evidence = evidenceOf(verdict, line, context);
    if (move.late) {
      evidence.lateRejection = true;
      lateRejections++;
    }
    lineChanges.push({
      index: line.index,
      endToEndId: line.endToEndId,
      from: line.state,
      to: move.to,
      statusCode: verdict.code,
      evidence,
    });
    finalState.set(line.index, move.to);
  }
  return { lineChanges, lateRejections, finalState };
}
