-- This migration also defined submit_context, journal_submit_check, journal_submit_item, journal_submit_together, journal_submit_batch.
-- SQL functions now live in src/db/functions and are re-applied on every migrate (migrations
-- keep table changes only).
SELECT 1;
--> statement-breakpoint
DROP FUNCTION IF EXISTS journal_submit_batch(jsonb);
--> statement-breakpoint
-- A one-payment document (about 3 KB with its sealed payload and file) stays in its heap row instead of
-- moving its sealed file to the TOAST table: one heap and one index insert fewer per submit, about a
-- third of the document insert. Large documents still go out of line.
ALTER TABLE "journal_documents" SET (toast_tuple_target = 8160);
