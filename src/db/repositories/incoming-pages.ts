import { sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';

/** What `incoming_payment.received` carries beside the credit (the envelope's version, the statement's bank). */
export type ReceivedEvents = {
  /** One generated `evt_` id; each event's id is it with the credit's position in the page. */
  idBase: string;
  apiVersion: string;
  createdAt: Date;
  bankKey: string | null;
  environment: string;
};

/**
 * A page of a statement's credits as incoming payments, one INSERT for the page (jsonb_to_recordset,
 * as unmatched entries are written: docs/adr/0029); a credit some earlier statement already brought
 * (same payment key) is skipped. Ids are the page's one generated id with the record's position.
 *
 * The same statement writes `incoming_payment.received` into the outbox for exactly the rows it
 * inserted (docs/adr/0075): a credit a camt.052 brought and the camt.053 repeats gets its event once,
 * and a 37,000-credit statement's events never become objects in this process. Returns the new ids
 * when `returning` (something may match them), else only their count.
 */
export async function insertIncomingPage(
  q: Executor,
  scope: CompanyScope,
  statement: { documentId: string; accountKey: string; idBase: string },
  json: string,
  now: Date,
  returning: boolean,
  events: ReceivedEvents,
): Promise<{ count: number; ids: string[] }> {
  const { rows } = await q.execute<{ id: string | null; n: number | null }>(sql`
    WITH inserted AS (
    INSERT INTO incoming_payments (id, platform_id, company_id, document_id, entry_index, payment_key, account_key,
           amount, amount_minor, currency, booking_date, value_date, bank_ref, end_to_end_id, reference,
           counterparty_name, counterparty_iban, remittance, status, matched_minor, created_at)
    SELECT ${statement.idBase}::text || lpad(to_hex(r.at::int), 5, '0'), ${scope.platformId}::text,
           ${scope.companyId}::text, ${statement.documentId}::text, (r.v->>0)::int, r.v->>1,
           ${statement.accountKey}::text, r.v->>2, (r.v->>3)::bigint, r.v->>4, (r.v->>5)::date, (r.v->>6)::date,
           r.v->>7, r.v->>8, r.v->>9, r.v->>10, r.v->>11, r.v->>12, 'unmatched', 0, ${now}::timestamptz
      -- Positional records (IncomingRecord), in the page's order.
      FROM jsonb_array_elements(${json}::jsonb) WITH ORDINALITY AS r(v, at)
     ORDER BY r.at
    ON CONFLICT (company_id, account_key, payment_key) DO NOTHING
    RETURNING id, entry_index, amount, currency, booking_date, value_date, bank_ref, end_to_end_id, reference,
              counterparty_name, counterparty_iban, remittance),
    received AS (
    INSERT INTO outbox_events (id, platform_id, company_id, type, payload, created_at)
    SELECT e.id, ${scope.platformId}::text, ${scope.companyId}::text, 'incoming_payment.received',
           jsonb_build_object('id', e.id, 'type', 'incoming_payment.received',
             'createdAt', ${events.createdAt.toISOString()}::text, 'apiVersion', ${events.apiVersion}::text,
             'platformId', ${scope.platformId}::text, 'companyId', ${scope.companyId}::text,
             'data', jsonb_build_object(
               'incomingPaymentId', i.id, 'status', 'unmatched', 'amount', i.amount, 'currency', i.currency,
               'bookingDate', i.booking_date, 'valueDate', i.value_date,
               'counterparty', jsonb_build_object('name', i.counterparty_name, 'iban', i.counterparty_iban),
               'reference', i.reference, 'endToEndId', i.end_to_end_id, 'remittance', i.remittance,
               'entry', jsonb_build_object('documentId', ${statement.documentId}::text, 'entryIndex', i.entry_index,
                                           'bankRef', i.bank_ref),
               'bankKey', ${events.bankKey}::text, 'environment', ${events.environment}::text)),
           ${events.createdAt}::timestamptz
      FROM inserted i, LATERAL (SELECT ${events.idBase}::text || right(i.id, 5) AS id) e
     ORDER BY i.id)
    ${returning ? sql`SELECT id, NULL::int AS n FROM inserted` : sql`SELECT NULL::text AS id, count(*)::int AS n FROM inserted`}`);
  if (!returning) return { count: rows[0]?.n ?? 0, ids: [] };
  return { count: rows.length, ids: rows.map((r) => r.id as string) };
}
