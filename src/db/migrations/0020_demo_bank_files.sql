CREATE TABLE "demo_bank_files" (
	"file_name" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"document_id" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"reply_at" timestamp with time zone NOT NULL,
	"receipts" integer DEFAULT 1 NOT NULL,
	"answered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "demo_bank_files_document_idx" ON "demo_bank_files" USING btree ("company_id","document_id");