CREATE TABLE "delivery_requests" (
	"document_id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
DROP INDEX "journal_documents_delivery_relay_idx";--> statement-breakpoint
ALTER TABLE "delivery_requests" ADD CONSTRAINT "delivery_requests_document_id_journal_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."journal_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "delivery_requests_created_idx" ON "delivery_requests" USING btree ("created_at");--> statement-breakpoint
-- Queued documents still waiting for their job move into the outbox before the column goes.
INSERT INTO "delivery_requests" ("document_id", "platform_id", "company_id", "created_at")
SELECT "id", "platform_id", "company_id", "created_at" FROM "journal_documents"
 WHERE "delivery_status" = 'queued' AND "delivery_enqueued_at" IS NULL;
--> statement-breakpoint
ALTER TABLE "journal_documents" DROP COLUMN "delivery_enqueued_at";
--> statement-breakpoint
-- This migration also defined journal_outbound.
-- SQL functions now live in src/db/functions and are re-applied on every migrate (migrations
-- keep table changes only).
SELECT 1;
