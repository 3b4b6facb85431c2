-- This migration also defined journal_submit_batch.
-- SQL functions now live in src/db/functions and are re-applied on every migrate (migrations
-- keep table changes only).
SELECT 1;
--> statement-breakpoint
-- Superseded by journal_submit_batch (a batch of one is the same statement).
DROP FUNCTION IF EXISTS journal_submit(text, text, text, text, jsonb, jsonb, jsonb, jsonb);
