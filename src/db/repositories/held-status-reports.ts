import { sql } from 'drizzle-orm';
import type { CompanyScope, Executor } from '../executor.ts';

/** A pain.002 journaled while its outbound document's delivery was under way (docs/adr/0074). */
export type HeldStatusReport = { reportDocumentId: string; outboundDocumentId: string };

/** Records reports held for their deliveries' record, in the transaction that journals them. */
export async function holdStatusReports(
  tx: Executor,
  scope: CompanyScope,
  held: HeldStatusReport[],
  now: Date,
): Promise<void> {
  if (held.length === 0) return;
  await tx.execute(sql`
    INSERT INTO held_status_reports (report_document_id, platform_id, company_id, outbound_document_id, held_at)
    SELECT h.report, ${scope.platformId}, ${scope.companyId}, h.outbound, ${now}
      FROM unnest(${sql.param(held.map((h) => h.reportDocumentId))}::text[],
                  ${sql.param(held.map((h) => h.outboundDocumentId))}::text[]) AS h(report, outbound)`);
}

/**
 * Takes (deletes and answers) the reports held for these outbound documents of one company, in the
 * order they were journaled; the caller applies them in the same transaction, so a rollback keeps
 * them held. The caller holds the outbound documents' row locks (the journaling side takes the same
 * locks first), so no report is held for them while this runs.
 */
export async function takeHeldStatusReports(
  tx: Executor,
  scope: CompanyScope,
  outboundDocumentIds: string[],
): Promise<HeldStatusReport[]> {
  if (outboundDocumentIds.length === 0) return [];
  // In journal order: a later report about the same document is applied after an earlier one.
  const result = await tx.execute<{ report_document_id: string; outbound_document_id: string }>(sql`
    WITH taken AS (
      DELETE FROM held_status_reports
       WHERE platform_id = ${scope.platformId} AND company_id = ${scope.companyId}
         AND outbound_document_id = ANY(${sql.param(outboundDocumentIds)}::text[])
      RETURNING report_document_id, outbound_document_id, held_at
    )
    SELECT t.report_document_id, t.outbound_document_id
      FROM taken t
      JOIN journal_documents d
        ON d.id = t.report_document_id AND d.platform_id = ${scope.platformId} AND d.company_id = ${scope.companyId}
     ORDER BY t.held_at, length(d.journal_no), d.journal_no`);
  return result.rows.map((r) => ({
    reportDocumentId: r.report_document_id,
    outboundDocumentId: r.outbound_document_id,
  }));
}
