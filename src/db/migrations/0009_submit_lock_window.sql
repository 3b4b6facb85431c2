-- A submit's payment lines and approval may be written before their document inside one transaction:
-- their foreign keys to journal_documents are checked at commit.
ALTER TABLE "payment_lines" ALTER CONSTRAINT "payment_lines_document_id_journal_documents_id_fk" DEFERRABLE INITIALLY DEFERRED;
--> statement-breakpoint
ALTER TABLE "approvals" ALTER CONSTRAINT "approvals_document_id_journal_documents_id_fk" DEFERRABLE INITIALLY DEFERRED;
--> statement-breakpoint
-- This migration also defined journal_outbound.
-- SQL functions now live in src/db/functions and are re-applied on every migrate (migrations
-- keep table changes only).
SELECT 1;
