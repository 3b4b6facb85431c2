import type { JournalDocumentRow } from '../../db/repositories/journal-documents.ts';
import type { PageRow } from '../../db/repositories/journal-pages.ts';
import { findBankProfile } from '../../domain/banks/profiles.ts';

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
    bankName: bankNameOf(row.bankKey),
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
    delivery: deliveryOf(row),
    accountIban: row.accountIban,
    accountCurrency: row.accountCurrency,
    collected: row.collected,
    collectedAt: row.collectedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}

export type DocumentView = ReturnType<typeof documentView>;

type DeliveryView = {
  status: string;
  reason?: string;
  code?: string;
  retryable?: boolean;
  attempts?: number;
};

/**
 * `delivery`: its status and, once an attempt failed (retrying or failed), why: the channel's
 * message and code as the delivery recorded them. Journal pages carry the status only (metadata).
 */
function deliveryOf(row: JournalDocumentRow): DeliveryView | null {
  if (row.deliveryStatus === null) return null;
  const recorded = (row.details as { delivery?: Record<string, unknown> } | null)?.delivery;
  if ((row.deliveryStatus !== 'failed' && row.deliveryStatus !== 'retrying') || !recorded) {
    return { status: row.deliveryStatus };
  }
  const text = (key: string) => (typeof recorded[key] === 'string' ? (recorded[key] as string) : undefined);
  const reason = text('failedReason') ?? text('lastError');
  const code = text('errorCode');
  return {
    status: row.deliveryStatus,
    ...(reason !== undefined ? { reason } : {}),
    ...(code !== undefined ? { code } : {}),
    ...(typeof recorded['retryable'] === 'boolean' ? { retryable: recorded['retryable'] } : {}),
    ...(typeof recorded['attempts'] === 'number' ? { attempts: recorded['attempts'] } : {}),
  };
}

/** The bank's display name: a map lookup of its profile (a list page asks 50 times; getProfile builds a whole view). */
function bankNameOf(bankKey: string | null): string | null {
  if (!bankKey) return null;
  return findBankProfile(bankKey)?.bankName ?? bankKey;
}

/**
 * documentView of a page row as the driver gives it, without the Date objects in between: the page
 * statements already format the times as toISOString does (UTC, milliseconds), so the JSON is the
 * same, key for key (test/journal/page-item-view.test.ts).
 */
export function pageItemView(row: PageRow): DocumentView {
  // delivery: the status only (the reason is on the document itself).
  return {
    id: row.id,
    journalNo: row.journal_no,
    platformId: row.platform_id,
    companyId: row.company_id,
    bankKey: row.bank_key,
    bankName: bankNameOf(row.bank_key),
    environment: row.environment,
    direction: row.direction,
    type: row.type,
    sourceFormat: row.source_format,
    summary: row.summary,
    status: row.status,
    messageId: row.message_id,
    importSource: row.import_source,
    transactionCount: row.transaction_count,
    totals: row.totals,
    paymentType: row.payment_type,
    idempotencyKey: row.idempotency_key,
    deliveryMode: row.delivery_mode,
    delivery: row.delivery_status === null ? null : { status: row.delivery_status },
    accountIban: row.account_iban,
    accountCurrency: row.account_currency,
    collected: row.collected,
    collectedAt: row.collected_at,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}
