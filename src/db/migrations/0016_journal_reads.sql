-- Journal reads at a million documents (docs/adr/0033, 0034, 0035): the searched text on the row,
-- indexes that serve every list order and filter, and per-company counts. The functions and triggers
-- that keep search_text and the counts live in src/db/functions/070_journal_search_text.sql and
-- 080_journal_document_counts.sql (applied after the migrations).
-- pg_trgm is a trusted extension (PostgreSQL 13+): a database owner may create it without superuser.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
ALTER TABLE "journal_documents" ADD COLUMN "search_text" text;--> statement-breakpoint
-- The existing documents' searched text, as journal_search_text() writes it (a migration cannot call
-- the functions folder): fields joined by U+001F, every total as "EUR 1234.50", lower-cased. A text over
-- 2,000 bytes (none that we write) keeps its first 500 characters here; its next update recomputes it.
UPDATE journal_documents d SET search_text = CASE WHEN octet_length(s.v) <= 2000 THEN s.v ELSE left(s.v, 500) END
  FROM (SELECT x.id, lower(concat_ws(E'\x1f', x.summary, x.message_id, x.journal_no, x.bank_key, x.status, x.type,
          (SELECT string_agg(coalesce(t->>'currency', '') || ' ' || coalesce(t->>'amount', ''), E'\x1f' ORDER BY i)
             FROM jsonb_array_elements(CASE WHEN jsonb_typeof(x.totals) = 'array' THEN x.totals ELSE '[]'::jsonb END)
                  WITH ORDINALITY AS e(t, i)))) AS v
          FROM journal_documents x) AS s
 WHERE s.id = d.id;--> statement-breakpoint
DROP INDEX "journal_documents_page_idx";--> statement-breakpoint
CREATE INDEX "journal_documents_page_idx" ON "journal_documents" USING btree ("company_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST,"direction","type","status","collected","search_text");--> statement-breakpoint
CREATE INDEX "journal_documents_filter_idx" ON "journal_documents" USING btree ("company_id","direction","type","status","collected","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "journal_documents_search_idx" ON "journal_documents" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE TABLE "journal_document_counts" (
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"direction" text NOT NULL,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"collected" boolean NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "journal_document_counts_direction_ck" CHECK (direction IN ('inbound', 'outbound')),
	CONSTRAINT "journal_document_counts_status_ck" CHECK ((direction = 'outbound' AND status IN ('pending-approval', 'converted', 'sent', 'executed', 'rejected', 'cancelled')) OR (direction = 'inbound' AND status IN ('ingested', 'quarantined')))
);
--> statement-breakpoint
CREATE INDEX "journal_document_counts_key_idx" ON "journal_document_counts" USING btree ("company_id","direction","type","status","collected");--> statement-breakpoint
INSERT INTO journal_document_counts (platform_id, company_id, direction, type, status, collected, n)
SELECT platform_id, company_id, direction, type, status, collected, count(*)
  FROM journal_documents GROUP BY 1, 2, 3, 4, 5, 6;
--> statement-breakpoint
-- Search selectivity estimates from a larger sample than the default 100-value histogram.
ALTER TABLE "journal_documents" ALTER COLUMN "search_text" SET STATISTICS 1000;
