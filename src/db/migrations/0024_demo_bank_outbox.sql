ALTER TABLE "demo_bank_files" ADD COLUMN "bank_key" text;--> statement-breakpoint
ALTER TABLE "demo_bank_files" ADD COLUMN "environment" text;--> statement-breakpoint
ALTER TABLE "demo_bank_files" ADD COLUMN "delivered" jsonb;--> statement-breakpoint
ALTER TABLE "demo_bank_files" ADD COLUMN "issued_as" text;--> statement-breakpoint
ALTER TABLE "demo_bank_files" ADD COLUMN "claimed_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "demo_bank_files_due_idx" ON "demo_bank_files" USING btree ("company_id","reply_at") WHERE "demo_bank_files"."answered_at" IS NULL;