import { randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { ApprovalRules } from '../../domain/approvals/rules.ts';
import {
  DELIVERY_STATUSES,
  deliveryStarted,
  documentTransition,
  OUTBOUND_STATUSES,
} from '../../domain/lifecycle/index.ts';
import type { Db } from '../client.ts';
import type { CompanyScope, Executor } from '../executor.ts';
import { rowJson } from '../row-json.ts';
import { approvals, journalDocuments, outboxEvents, paymentLines } from '../schema/index.ts';
import { type BatchItem, batchJson, submitBatcherFor } from '../submit-batcher.ts';
import { inCompany } from '../tenant.ts';
import { auditAppendJson, type NewEvent } from './activity-events.ts';
import type { JournalDocumentRow } from './journal-documents.ts';

/** Queries of the journal submission path (POST /journal/payments, preview, cancel). */

export type SubmitPolicy = {
  id: string;
  name: string;
  enabled: boolean;
  environment: string;
  currency: string | null;
  minAmount: string;
  bankKeys: string[] | null;
  /** The rules an approval under this policy freezes. */
  rules: ApprovalRules;
};

export type SubmitContext = {
  /** The platform the company belongs to; undefined when no such company exists. */
  companyPlatformId: string | undefined;
  /** connections.settings of the company's connection to the bank in the environment, when in scope. */
  settings: { chargeBearer?: string; executionDateOffsetDays?: number } | null;
  /** Status of the company's connection to the bank in the environment; null when it has none. */
  connectionStatus: string | null;
  /** Enabled approval policies of the company, oldest first (only when the company is in scope). */
  policies: SubmitPolicy[];
  /**
   * The context as PostgreSQL wrote it (submit_context, src/db/functions): journal_outbound compares
   * it with the current one, so a submit converted with a context read earlier is journaled only if
   * nothing changed since. Null when no such company exists.
   */
  text: string | null;
  /** Remembered from an earlier read (companySubmitContext `recent`), not read for this request. */
  recent?: true;
};

type ContextJson = {
  platform_id: string;
  settings: SubmitContext['settings'];
  connection_status?: string | null;
  policies: Array<{
    id: string;
    name: string;
    enabled: boolean;
    environment: string;
    currency: string | null;
    min_amount: string;
    bank_keys: string[] | null;
    required_approvals: number;
    groups: Array<{ name: string; userIds: string[] }>;
    require_one_from_each_group: boolean;
    ordered_approval: boolean;
    two_factor_required: boolean;
  }> | null;
};

/**
 * Everything a submit reads before it converts, in one round trip: which platform the company
 * belongs to (403 versus 404), its bank settings for this bank and environment, and its enabled
 * approval policies. Settings and policies are read under the caller's scope only.
 */
export async function loadSubmitContext(
  db: Db,
  scope: CompanyScope,
  bankKey: string,
  environment: string,
): Promise<SubmitContext> {
  // A named statement (parsed and planned once per connection): it runs on every submit and preview.
  const result = await db.$client.query<{ context: string | null }>({
    name: 'load_submit_context',
    text: 'SELECT submit_context($1, $2, $3, $4)::text AS context',
    values: [scope.platformId, scope.companyId, bankKey, environment],
  });
  const text = result.rows[0]?.context ?? null;
  if (text === null) {
    return { companyPlatformId: undefined, settings: null, connectionStatus: null, policies: [], text: null };
  }
  const row = JSON.parse(text) as ContextJson;
  return {
    companyPlatformId: row.platform_id,
    settings: row.settings ?? null,
    connectionStatus: row.connection_status ?? null,
    policies: (row.policies ?? []).map((p) => ({
      id: p.id,
      name: p.name,
      enabled: p.enabled,
      environment: p.environment,
      currency: p.currency,
      minAmount: p.min_amount,
      bankKeys: p.bank_keys,
      rules: {
        requiredApprovals: p.required_approvals,
        groups: p.groups,
        requireOneFromEachGroup: p.require_one_from_each_group,
        orderedApproval: p.ordered_approval,
        twoFactorRequired: p.two_factor_required,
      },
    })),
    text,
  };
}

export type SubmitClaim = 'in-flight' | 'earlier' | 'clear';

/** An outbound document ready to journal: everything but its journal number and chained events. */
export type OutboundEntry = {
  document: Omit<JournalDocumentRow, 'journalNo'>;
  lines: Array<typeof paymentLines.$inferInsert>;
  approval: typeof approvals.$inferInsert | null;
  /** The audit events, built for the journal number the statement hands out. */
  events: (journalNo: string) => NewEvent[];
  /** Webhook events written to the outbox with the document (approval.requested), for that journal number. */
  outbox?: (journalNo: string) => Array<typeof outboxEvents.$inferInsert>;
};

/**
 * A submit's claim (journal_submit_claim, src/db/functions): `in-flight` when another open transaction
 * holds the company's idempotency key or message id (transaction-scoped advisory locks, taken
 * without waiting), `earlier` when an outbound document with either exists already, `clear` when
 * the caller may journal. The locks end with the caller's transaction.
 */
export async function claimSubmit(
  tx: Executor,
  scope: CompanyScope,
  idempotencyKey: string,
  messageId: string | null,
): Promise<SubmitClaim> {
  const result = await tx.execute<{ claim: SubmitClaim }>(
    sql`SELECT journal_submit_claim(${scope.platformId}, ${scope.companyId}, ${idempotencyKey}, ${messageId}) AS claim`,
  );
  return result.rows[0]!.claim;
}

/**
 * What the journaling statement re-checks for a submit prepared outside it: the API key that sent it is
 * still active, and the context it was converted with (SubmitContext.text) is still the company's
 * (null: not checked).
 */
export type SubmitChecks = { apiKeyId: string | null; context: string | null };

/** Why the statement journaled nothing, besides an earlier or in-flight claim. */
export type SubmitRefusal = 'revoked' | 'stale-context';

/** What journaling a submit answers: its journal number, the claim that stopped it, or the failed check. */
export type SubmitAnswer =
  | { journalNo: string }
  | { claim: Exclude<SubmitClaim, 'clear'> }
  | { refused: SubmitRefusal };

/**
 * Checks, claim and journal in one statement and its own transaction, grouped with the submits that
 * arrive at the same time (src/db/submit-batcher.ts): one round trip and one commit for all of them.
 * Answers the journal number, the claim that stopped it, or the check that failed.
 */
export async function submitOutbound(
  db: Db,
  scope: CompanyScope,
  idempotencyKey: string,
  messageId: string | null,
  entry: OutboundEntry,
  checks: SubmitChecks,
): Promise<SubmitAnswer> {
  return submitAnswer(await submitBatcherFor(db).submit(batchItem(scope, idempotencyKey, messageId, entry, checks)));
}

/** A submit as an item of journal_submit_batch. */
export function batchItem(
  scope: CompanyScope,
  idempotencyKey: string,
  messageId: string | null,
  entry: OutboundEntry,
  checks: SubmitChecks,
): BatchItem {
  return {
    platformId: scope.platformId,
    companyId: scope.companyId,
    key: idempotencyKey,
    messageId,
    apiKeyId: checks.apiKeyId,
    bankKey: entry.document.bankKey ?? '',
    environment: entry.document.environment,
    context: checks.context,
    ...entryRows(entry),
  };
}

/**
 * A production submit's journaling, inside the caller's transaction (after its claim and billing
 * gates): the same statement as a test submit's, journal_submit_batch, with a batch of one. Its
 * claim is taken again there (advisory locks are re-entrant), so it finds the claim clear.
 */
export async function journalInTransaction(tx: Executor, item: BatchItem): Promise<SubmitAnswer> {
  const items = batchJson([item]);
  const result = await tx.execute<{ r: string[] }>(sql`SELECT journal_submit_batch(${items}::jsonb, false) AS r`);
  return submitAnswer(result.rows[0]!.r[0]!);
}

/** One item's answer of journal_submit_batch. */
function submitAnswer(
  r: string,
): { journalNo: string } | { claim: Exclude<SubmitClaim, 'clear'> } | { refused: SubmitRefusal } {
  if (r === 'in-flight' || r === 'earlier') return { claim: r };
  if (r === 'revoked' || r === 'stale-context') return { refused: r };
  if (r.startsWith('error:')) throw new Error(`journal_submit_batch: ${r.slice('error:'.length)}`);
  return { journalNo: r };
}

/**
 * The rows as journal_outbound reads them. The journal number and each event's seq only exist inside
 * the statement, so events travel with placeholders: a random journal-number token in message,
 * metadata and the canonical JSON, and a seq token in the canonical JSON (audit_append fills that in
 * and hashes). Random tokens cannot collide with client-supplied text.
 */
function entryRows(entry: OutboundEntry) {
  const token = randomUUID();
  const journalNoHole = `#journal-no:${token}#`;
  const seqHole = `#seq:${token}#`;
  return {
    document: rowJson(journalDocuments, { ...entry.document, journalNo: '' }),
    lines: entry.lines.map((l) => rowJson(paymentLines, l)),
    approval: entry.approval ? rowJson(approvals, entry.approval) : null,
    events: entry
      .events(journalNoHole)
      .map((e) => ({ ...auditAppendJson(e, seqHole), journal_no_hole: journalNoHole })),
    outbox: (entry.outbox?.(journalNoHole) ?? []).map((o) => ({
      ...rowJson(outboxEvents, o),
      journal_no_hole: journalNoHole,
    })),
  };
}

/** Outbound documents of the company with this idempotency key or message id, newest first. */
export async function findOutboundForSubmit(
  q: Executor,
  scope: CompanyScope,
  idempotencyKey: string,
  messageId: string | null,
): Promise<JournalDocumentRow[]> {
  return q
    .select()
    .from(journalDocuments)
    .where(
      and(
        inCompany(journalDocuments, scope),
        eq(journalDocuments.direction, 'outbound'),
        messageId === null
          ? eq(journalDocuments.idempotencyKey, idempotencyKey)
          : or(eq(journalDocuments.idempotencyKey, idempotencyKey), eq(journalDocuments.messageId, messageId)),
      ),
    )
    .orderBy(desc(journalDocuments.createdAt), desc(journalDocuments.id))
    .limit(20);
}

/** Statuses from which the state machine lets a client cancel (documentTransition, event `cancel`). */
const CANCELLABLE_STATUSES = OUTBOUND_STATUSES.filter(
  (status) => documentTransition({ status, deliveryMode: 'converted-only' }, { type: 'cancel' }).ok,
);
/** Delivery states in which nothing can have reached the bank yet (deliveryStarted). */
const UNDELIVERED_STATES = DELIVERY_STATUSES.filter((d) => d !== 'cancelled' && !deliveryStarted(d));

/**
 * Cancels an outbound document if, at this instant, it is still cancellable and its delivery has
 * not started: one conditional UPDATE, so a delivery worker that moves the delivery state first
 * (under its own row lock) wins and this answers undefined.
 */
export async function cancelOutboundDocument(
  tx: Executor,
  scope: CompanyScope,
  id: string,
  now: Date,
): Promise<JournalDocumentRow | undefined> {
  const [row] = await tx
    .update(journalDocuments)
    .set({
      status: 'cancelled',
      deliveryStatus: sql`CASE WHEN ${journalDocuments.deliveryMode} = 'host-to-host' THEN 'cancelled' ELSE ${journalDocuments.deliveryStatus} END`,
      updatedAt: now,
    })
    .where(
      and(
        inCompany(journalDocuments, scope),
        eq(journalDocuments.id, id),
        eq(journalDocuments.direction, 'outbound'),
        inArray(journalDocuments.status, CANCELLABLE_STATUSES),
        or(isNull(journalDocuments.deliveryStatus), inArray(journalDocuments.deliveryStatus, UNDELIVERED_STATES)),
      ),
    )
    .returning();
  return row;
}

/**
 * The delivery relay's claim: up to `limit` delivery requests of any tenant (queued host-to-host
 * documents without a bank-delivery job yet), oldest first, deleted in the caller's transaction
 * (which creates their jobs). SKIP LOCKED lets several worker processes relay side by side without
 * doubling a job. Cross-tenant by design, like every worker claim; each row carries its own scope.
 */
export async function claimQueuedDeliveries(
  tx: Executor,
  limit: number,
): Promise<Array<{ documentId: string; platformId: string; companyId: string }>> {
  const result = await tx.execute<{ document_id: string; platform_id: string; company_id: string }>(sql`
    DELETE FROM delivery_requests r
     WHERE r.document_id IN (SELECT q.document_id FROM delivery_requests q
                              ORDER BY q.created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING r.document_id, r.platform_id, r.company_id`);
  return result.rows.map((r) => ({ documentId: r.document_id, platformId: r.platform_id, companyId: r.company_id }));
}
