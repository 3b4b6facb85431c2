ALTER TABLE "payment_lines" ADD COLUMN "open_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "payment_lines_open_idx" ON "payment_lines" USING btree ("company_id","open_until") WHERE open_until IS NOT NULL;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_status_ck" CHECK (status IN ('pending', 'approved', 'rejected', 'cancelled', 'expired'));--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_environment_ck" CHECK (environment IN ('test', 'production'));--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_status_ck" CHECK (status IN ('pending-activation', 'active'));--> statement-breakpoint
ALTER TABLE "conversion_jobs" ADD CONSTRAINT "conversion_jobs_status_ck" CHECK (status IN ('pending', 'running', 'succeeded', 'dead'));--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_status_ck" CHECK (status IN ('active', 'invited', 'erased'));--> statement-breakpoint
ALTER TABLE "journal_documents" ADD CONSTRAINT "journal_documents_direction_ck" CHECK (direction IN ('inbound', 'outbound'));--> statement-breakpoint
ALTER TABLE "journal_documents" ADD CONSTRAINT "journal_documents_environment_ck" CHECK (environment IN ('test', 'production'));--> statement-breakpoint
ALTER TABLE "journal_documents" ADD CONSTRAINT "journal_documents_status_ck" CHECK ((direction = 'outbound' AND status IN ('pending-approval', 'converted', 'sent', 'executed', 'rejected', 'cancelled')) OR (direction = 'inbound' AND status IN ('ingested', 'quarantined')));--> statement-breakpoint
ALTER TABLE "journal_documents" ADD CONSTRAINT "journal_documents_delivery_mode_ck" CHECK (delivery_mode IN ('converted-only', 'host-to-host'));--> statement-breakpoint
ALTER TABLE "journal_documents" ADD CONSTRAINT "journal_documents_delivery_status_ck" CHECK (delivery_status IN ('not-applicable', 'awaiting-approval', 'queued', 'in-progress', 'retrying', 'delivered', 'failed', 'cancelled'));--> statement-breakpoint
ALTER TABLE "payment_lines" ADD CONSTRAINT "payment_lines_state_ck" CHECK (state IN ('pending', 'cleared', 'rejected'));--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_status_ck" CHECK (status IN ('pending', 'succeeded', 'failed'));--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_status_ck" CHECK (status IN ('enabled', 'disabled', 'auto-disabled'));--> statement-breakpoint
-- Lines still waiting for evidence stay candidates for the default answer window from their submit.
UPDATE "payment_lines" SET "open_until" = "updated_at" + interval '45 days'
 WHERE "state" = 'pending' OR ("state" = 'cleared' AND "evidence"->>'source' = 'pain.002');
--> statement-breakpoint
-- Functions superseded by src/db/functions (re-applied after the migrations): the per-item journal write
-- (journal_outbound of one document, journal_submit_item) and journal_submit_together, now the one
-- set-based journal_outbound(jsonb).
DROP FUNCTION IF EXISTS journal_outbound(jsonb, jsonb, jsonb, jsonb);
--> statement-breakpoint
DROP FUNCTION IF EXISTS journal_submit_item(jsonb);
--> statement-breakpoint
DROP FUNCTION IF EXISTS journal_submit_together(jsonb);
