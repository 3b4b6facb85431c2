import type { JournalDocumentRow, PaymentLineRow } from '../../db/repositories/journal-documents.ts';
import { findDocument, listPaymentLines } from '../../db/repositories/journal-documents.ts';
import { type ApprovalRead, findDocumentApproval, tallyPaymentTypes } from '../../db/repositories/journal-reads.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { currencyExponent } from '../../domain/money/currencies.ts';
import { decimalToMinor, formatMinor } from '../../domain/money/money.ts';
import type { AppContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { documentView } from './document-view.ts';
import { documentReconState } from './reconciliation-state.ts';

async function scopedDocument(ctx: AppContext, principal: Principal, companyId: string, id: string) {
  const scope = await companyScope(ctx, principal, companyId);
  const row = await findDocument(ctx.db, scope, id);
  // Absent and another tenant's document answer alike: nothing is revealed about foreign ids.
  if (!row) throw notFound('document');
  return { scope, row };
}

function decryptJson(ctx: AppContext, sealed: string | null): unknown {
  if (sealed === null) return null;
  return JSON.parse(ctx.encryptor.decrypt(sealed)) as unknown;
}

/** GET /journal/documents/{id}: the metadata and the decrypted canonical payment or normalised statement/report. */
export async function getDocument(ctx: AppContext, principal: Principal, companyId: string, id: string) {
  const { row } = await scopedDocument(ctx, principal, companyId, id);
  return {
    ...documentView(row),
    ...(row.warnings && row.warnings.length > 0 ? { warnings: row.warnings } : {}),
    payload: decryptJson(ctx, row.payloadSealed),
  };
}

/** GET /journal/documents/{id}/file: the stored pain.001 of an outbound document; the collected flag is left alone. */
export async function getDocumentFile(ctx: AppContext, principal: Principal, companyId: string, id: string) {
  const { row } = await scopedDocument(ctx, principal, companyId, id);
  if (row.direction !== 'outbound' || row.fileSealed === null) throw notFound('payment file');
  return { filename: `${row.journalNo}.xml`, xml: ctx.encryptor.decrypt(row.fileSealed) };
}

function lineView(line: PaymentLineRow) {
  return {
    index: line.lineIndex,
    payee: line.payeeName,
    payeeIban: line.payeeIban,
    amount: line.amount,
    currency: line.currency,
    endToEndId: line.endToEndId,
    recon: { state: line.state, evidence: line.evidence ?? null },
  };
}

/** The contract's approval summary. An API key never decides (approvals are made by signed-in users). */
function approvalView(read: ApprovalRead, doc: JournalDocumentRow, lines: PaymentLineRow[]) {
  const { approval, policy, userNames } = read;
  const currency = doc.totals[0]?.currency ?? lines[0]?.currency ?? null;
  const exponent = currency ? (currencyExponent(currency) ?? 2) : 2;
  let max: bigint | undefined;
  let largest: PaymentLineRow | undefined;
  for (const line of lines) {
    if (line.currency !== currency) continue;
    if (max === undefined || line.amountMinor > max) {
      max = line.amountMinor;
      largest = line;
    }
  }
  const total = doc.totals.find((t) => t.currency === currency)?.amount ?? null;
  const payees = [...new Set(lines.map((l) => l.payeeName).filter((n): n is string => !!n))];
  const decided = (kind: string) => approval.decisions.filter((d) => (d['decision'] ?? d['action']) === kind);
  const nameOf = (d: Record<string, unknown>) =>
    (typeof d['userName'] === 'string' ? d['userName'] : undefined) ??
    userNames.get(String(d['userId'])) ??
    String(d['userId'] ?? 'unknown');
  return {
    id: approval.id,
    status: approval.status,
    paymentRef: doc.messageId ?? doc.journalNo,
    payeeName: payees.length === 1 ? payees[0]! : payees.length === 0 ? null : `${payees.length} payees`,
    currency,
    maxTransaction: max === undefined ? null : formatMinor(max, exponent),
    maxTransactionPayee: largest?.payeeName ?? null,
    journalTotal: total === null ? null : formatMinor(decimalToMinor(total, exponent) ?? 0n, exponent),
    requiredApprovals: policy?.requiredApprovals ?? 1,
    requireOneFromEachGroup: policy?.requireOneFromEachGroup ?? false,
    orderedApproval: policy?.orderedApproval ?? false,
    groupCount: policy?.groups.length ?? 0,
    approvals: decided('approve').map((d) => ({ userName: nameOf(d), at: d['at'] ?? null })),
    rejections: decided('reject').map((d) => ({
      userName: nameOf(d),
      at: d['at'] ?? null,
      reason: d['reason'] ?? null,
    })),
    canApprove: false,
    blockReason:
      approval.status !== 'pending'
        ? `the approval is ${approval.status}`
        : 'approvals are decided by signed-in approvers, not with an API key',
    twoFactorRequired: policy?.twoFactorRequired ?? false,
  };
}

/** GET /journal/documents/{id}/payments: the per-line view of an outbound batch with approval and recon. */
export async function getDocumentPayments(ctx: AppContext, principal: Principal, companyId: string, id: string) {
  const { scope, row } = await scopedDocument(ctx, principal, companyId, id);
  if (row.direction !== 'outbound') throw notFound('outbound document');
  return paymentsOf(ctx, scope, row);
}

/**
 * A document as its dashboard page shows it, with one read of the row: what GET /journal/documents/{id}
 * answers, and for an outbound one what /payments and /file answer (null where those answer 404).
 */
export async function readDocumentWhole(ctx: AppContext, principal: Principal, companyId: string, id: string) {
  const { scope, row } = await scopedDocument(ctx, principal, companyId, id);
  const outbound = row.direction === 'outbound';
  return {
    document: {
      ...documentView(row),
      ...(row.warnings && row.warnings.length > 0 ? { warnings: row.warnings } : {}),
      payload: decryptJson(ctx, row.payloadSealed),
    },
    payments: outbound ? await paymentsOf(ctx, scope, row) : null,
    file:
      outbound && row.fileSealed !== null
        ? { filename: `${row.journalNo}.xml`, xml: ctx.encryptor.decrypt(row.fileSealed) }
        : null,
  };
}

async function paymentsOf(ctx: AppContext, scope: { platformId: string; companyId: string }, row: JournalDocumentRow) {
  const [lines, approval] = await Promise.all([
    listPaymentLines(ctx.db, scope, row.id),
    findDocumentApproval(ctx.db, scope, row.id),
  ]);
  const recon = documentReconState(lines.map((l) => ({ state: l.state, evidence: l.evidence, at: l.updatedAt })));
  return {
    documentId: row.id,
    journalNo: row.journalNo,
    messageId: row.messageId,
    status: row.status,
    deliveryMode: row.deliveryMode,
    bankKey: row.bankKey,
    bankName: row.bankKey ? (getProfile(row.bankKey)?.bankName ?? row.bankKey) : null,
    createdAt: row.createdAt.toISOString(),
    payments: lines.map(lineView),
    approval: approval ? approvalView(approval, row, lines) : null,
    recon,
  };
}

/** Outbound documents tallied: the newest this many are read; `sampled` says older ones were left out. */
export const PAYMENT_TYPE_SAMPLE = 10_000;

/** GET /journal/payment-types: outbound payments per payment type, weighted by transaction count. */
export async function paymentTypeCounts(ctx: AppContext, principal: Principal, companyId: string) {
  const scope = await companyScope(ctx, principal, companyId);
  const tally = await tallyPaymentTypes(ctx.db, scope, PAYMENT_TYPE_SAMPLE);
  const sampled = tally.more;
  const counts: Record<string, number> = {};
  let total = 0;
  for (const r of tally.rows) {
    const type = r.paymentType ?? 'unspecified';
    counts[type] = (counts[type] ?? 0) + r.count;
    total += r.count;
  }
  return { counts, total, sampled };
}
