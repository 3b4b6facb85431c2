import { and, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';
import { journalDocuments } from '../schema/index.ts';
import { inCompany } from '../tenant.ts';
import type { JournalDocumentRow } from './journal-documents.ts';

/** Queries of the journal submission path (POST /journal/payments, preview, cancel). */

export type SubmitPolicy = {
  id: string;
  enabled: boolean;
  environment: string;
  currency: string | null;
  minAmount: string;
  bankKeys: string[] | null;
};

export type SubmitContext = {
  /** The platform the company belongs to; undefined when no such company exists. */
  companyPlatformId: string | undefined;
  /** connections.settings of the company's connection to the bank in the environment, when in scope. */
  settings: { chargeBearer?: string; executionDateOffsetDays?: number } | null;
  /** Enabled approval policies of the company, oldest first (only when the company is in scope). */
  policies: SubmitPolicy[];
};

/**
 * Everything a submit reads before its transaction, in one round trip: which platform the company
 * belongs to (403 versus 404), its bank settings for this bank and environment, and its enabled
 * approval policies. Settings and policies are read under the caller's scope only.
 */
export async function loadSubmitContext(
  q: Executor,
  scope: CompanyScope,
  bankKey: string,
  environment: string,
): Promise<SubmitContext> {
  const result = await q.execute<{
    platform_id: string;
    settings: SubmitContext['settings'];
    policies: Array<{
      id: string;
      enabled: boolean;
      environment: string;
      currency: string | null;
      min_amount: string;
      bank_keys: string[] | null;
    }> | null;
  }>(sql`
    SELECT c.platform_id,
      (SELECT x.settings FROM connections x
        WHERE x.platform_id = ${scope.platformId} AND x.company_id = c.id
          AND x.bank_key = ${bankKey} AND x.environment = ${environment}) AS settings,
      (SELECT json_agg(json_build_object('id', p.id, 'enabled', p.enabled, 'environment', p.environment,
                'currency', p.currency, 'min_amount', p.min_amount, 'bank_keys', p.bank_keys)
              ORDER BY p.created_at, p.id)
         FROM approval_policies p
        WHERE p.platform_id = ${scope.platformId} AND p.company_id = c.id AND p.enabled) AS policies
      FROM companies c WHERE c.id = ${scope.companyId}`);
  const row = result.rows[0];
  if (!row) return { companyPlatformId: undefined, settings: null, policies: [] };
  return {
    companyPlatformId: row.platform_id,
    settings: row.settings ?? null,
    policies: (row.policies ?? []).map((p) => ({
      id: p.id,
      enabled: p.enabled,
      environment: p.environment,
      currency: p.currency,
      minAmount: p.min_amount,
      bankKeys: p.bank_keys,
    })),
  };
}

/**
 * Tries transaction-scoped advisory locks on a company's idempotency key and message id. False when
 * another transaction holds either: a submit with that key or message id is in flight right now.
 * Both locks end with the caller's transaction (commit or rollback).
 */
export async function tryLockSubmit(
  tx: Executor,
  companyId: string,
  idempotencyKey: string,
  messageId: string | null,
): Promise<boolean> {
  const keyLock = `submit-key:${companyId}:${idempotencyKey}`;
  const messageLock = messageId === null ? null : `submit-msg:${companyId}:${messageId}`;
  const result = await tx.execute<{ key: boolean; msg: boolean }>(sql`
    SELECT pg_try_advisory_xact_lock(hashtextextended(${keyLock}, 0)) AS key,
           ${messageLock === null ? sql`true` : sql`pg_try_advisory_xact_lock(hashtextextended(${messageLock}, 0))`} AS msg`);
  const row = result.rows[0];
  return row?.key === true && row.msg === true;
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

/** Statuses from which a document may still be cancelled (DESIGN.md lifecycle). */
export const CANCELLABLE_STATUSES = ['converted', 'pending-approval'] as const;
/** Delivery states in which nothing has reached the bank yet. */
export const UNDELIVERED_STATES = ['queued', 'awaiting-approval', 'not-applicable'] as const;

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
        inArray(journalDocuments.status, [...CANCELLABLE_STATUSES]),
        or(isNull(journalDocuments.deliveryStatus), inArray(journalDocuments.deliveryStatus, [...UNDELIVERED_STATES])),
      ),
    )
    .returning();
  return row;
}
