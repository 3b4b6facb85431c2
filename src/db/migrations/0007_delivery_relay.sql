ALTER TABLE "journal_documents" ADD COLUMN "delivery_enqueued_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "journal_documents_delivery_relay_idx" ON "journal_documents" USING btree ("created_at") WHERE delivery_status = 'queued' AND delivery_enqueued_at IS NULL;--> statement-breakpoint
-- Documents queued before this migration already got their bank-delivery job inside their submit.
UPDATE "journal_documents" SET "delivery_enqueued_at" = "created_at" WHERE "delivery_status" = 'queued';
--> statement-breakpoint
-- This migration also defined journal_submit_claim, journal_outbound, journal_submit.
-- SQL functions now live in src/db/functions and are re-applied on every migrate (migrations
-- keep table changes only).
SELECT 1;
