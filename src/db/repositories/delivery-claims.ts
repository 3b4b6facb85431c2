import { sql } from 'drizzle-orm';
import { CLAIM_OWNER_NAMESPACE } from '../claim-owner.ts';
import type { CompanyScope, Executor } from '../executor.ts';

export type ClaimedDelivery = { documentId: string; platformId: string; companyId: string };

/**
 * Records that the owner `ownerKey` (src/db/claim-owner.ts) claimed these deliveries of one company,
 * in the claim's transaction; a claim another owner left behind becomes this one's.
 */
export async function recordDeliveryClaims(
  tx: Executor,
  scope: CompanyScope,
  documentIds: string[],
  ownerKey: number,
  now: Date,
): Promise<void> {
  if (documentIds.length === 0) return;
  await tx.execute(sql`
    INSERT INTO delivery_claims (document_id, platform_id, company_id, owner_key, claimed_at)
    SELECT d, ${scope.platformId}, ${scope.companyId}, ${ownerKey}, ${now}
      FROM unnest(${sql.param(documentIds)}::text[]) AS d
    ON CONFLICT (document_id) DO UPDATE SET owner_key = excluded.owner_key, claimed_at = excluded.claimed_at`);
}

/** Ends the claims of these deliveries of one company (their outcome recorded), whoever made them. */
export async function releaseDeliveryClaims(tx: Executor, scope: CompanyScope, documentIds: string[]): Promise<void> {
  if (documentIds.length === 0) return;
  await tx.execute(sql`
    DELETE FROM delivery_claims
     WHERE platform_id = ${scope.platformId} AND company_id = ${scope.companyId}
       AND document_id = ANY(${sql.param(documentIds)}::text[])`);
}

/**
 * Takes the claims whose owner's session is gone, across companies (a system sweep, like the
 * delivery relay): an owner's key is free exactly when the session that held it ended, which this
 * transaction finds by taking the key itself (transaction-scoped, released at commit; a key another
 * sweeper is testing at the same moment counts as held). Answers the deliveries to queue again.
 */
export async function takeAbandonedClaims(tx: Executor, limit: number): Promise<ClaimedDelivery[]> {
  const result = await tx.execute<{ document_id: string; platform_id: string; company_id: string }>(sql`
    WITH owners AS (
      SELECT DISTINCT owner_key FROM delivery_claims
    ), gone AS (
      SELECT owner_key FROM owners WHERE pg_try_advisory_xact_lock(${CLAIM_OWNER_NAMESPACE}, owner_key)
    )
    DELETE FROM delivery_claims c
     WHERE c.document_id IN (SELECT document_id FROM delivery_claims x JOIN gone USING (owner_key)
                              LIMIT ${limit} FOR UPDATE OF x SKIP LOCKED)
    RETURNING c.document_id, c.platform_id, c.company_id`);
  return result.rows.map((r) => ({ documentId: r.document_id, platformId: r.platform_id, companyId: r.company_id }));
}
