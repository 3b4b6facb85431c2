import type { JournalDocumentRow } from '../../db/repositories/journal-documents.ts';
import { getProfile } from '../../domain/conversion/index.ts';

/**
 * The contract's Journal document (metadata). Routes add `xml` (submit), `warnings` (when raised),
 * `deduped` and `ingest` (ingest), or the decrypted payload (GET /journal/documents/{id}).
 */
export function documentView(row: JournalDocumentRow) {
  return {
    id: row.id,
    journalNo: row.journalNo,
    platformId: row.platformId,
    companyId: row.companyId,
    bankKey: row.bankKey,
    bankName: row.bankKey ? (getProfile(row.bankKey)?.bankName ?? row.bankKey) : null,
    environment: row.environment,
    direction: row.direction,
    type: row.type,
    sourceFormat: row.sourceFormat,
    summary: row.summary,
    status: row.status,
    messageId: row.messageId,
    importSource: row.importSource,
    transactionCount: row.transactionCount,
    totals: row.totals,
    paymentType: row.paymentType,
    idempotencyKey: row.idempotencyKey,
    deliveryMode: row.deliveryMode,
    delivery: row.deliveryStatus === null ? null : { status: row.deliveryStatus },
    accountIban: row.accountIban,
    accountCurrency: row.accountCurrency,
    collected: row.collected,
    collectedAt: row.collectedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}

export type DocumentView = ReturnType<typeof documentView>;
