import type { CompanyScope } from '../../db/executor.ts';
import { findDocumentApproval } from '../../db/repositories/approvals.ts';
import type { JournalDocumentRow, PaymentLineRow } from '../../db/repositories/journal-documents.ts';
import { findDocument, listPaymentLines } from '../../db/repositories/journal-documents.ts';
import { tallyPaymentTypes } from '../../db/repositories/journal-reads.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { viewerFor, viewsOf } from '../approvals/queue.ts';
import type { AppContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { requireCompanyMember } from '../identity/access.ts';
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

/** GET /journal/documents/{id}/payments: the per-line view of an outbound batch with approval and recon. */
export async function getDocumentPayments(ctx: AppContext, principal: Principal, companyId: string, id: string) {
  // A session reads the companies its user belongs to (a workspace admin: every one of the platform).
  if (principal.kind === 'session') requireCompanyMember(principal, principal.platformId, companyId);
  const { scope, row } = await scopedDocument(ctx, principal, companyId, id);
  if (row.direction !== 'outbound') throw notFound('outbound document');
  return paymentsOf(ctx, principal, scope, row);
}

/**
 * A document as its dashboard page shows it, with one read of the row: what GET /journal/documents/{id}
 * answers, and for an outbound one what /payments and /file answer (null where those answer 404).
 */
export async function readDocumentWhole(ctx: AppContext, principal: Principal, companyId: string, id: string) {
  if (principal.kind === 'session') requireCompanyMember(principal, principal.platformId, companyId);
  const { scope, row } = await scopedDocument(ctx, principal, companyId, id);
  const outbound = row.direction === 'outbound';
  return {
    document: {
      ...documentView(row),
      ...(row.warnings && row.warnings.length > 0 ? { warnings: row.warnings } : {}),
      payload: decryptJson(ctx, row.payloadSealed),
    },
    payments: outbound ? await paymentsOf(ctx, principal, scope, row) : null,
    file:
      outbound && row.fileSealed !== null
        ? { filename: `${row.journalNo}.xml`, xml: ctx.encryptor.decrypt(row.fileSealed) }
        : null,
  };
}

async function paymentsOf(ctx: AppContext, principal: Principal, scope: CompanyScope, row: JournalDocumentRow) {
  const companyId = scope.companyId;
  const [lines, approval] = await Promise.all([
    listPaymentLines(ctx.db, scope, row.id),
    findDocumentApproval(ctx.db, scope, row.id),
  ]);
  // The approval summary of the contract, with canApprove and blockReason for the caller.
  const approvalSummary = approval
    ? (
        await viewsOf(
          ctx.db,
          scope,
          [approval],
          await viewerFor(ctx.db, principal, companyId, approval.approval.rules.twoFactorRequired),
        )
      )[0]!
    : null;
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
    approval: approvalSummary,
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
