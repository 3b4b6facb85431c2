-- Debit expected payments matched to statement debits (docs/adr/0077): a match names an incoming payment
-- or an unmatched statement entry (exactly one); the entry keeps what was matched of it and its creditor reference.
ALTER TABLE "receivable_matches" ALTER COLUMN "incoming_payment_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "receivable_matches" ADD COLUMN "unmatched_entry_id" bigint;--> statement-breakpoint
ALTER TABLE "receivable_matches" ADD COLUMN "entry_document_id" text;--> statement-breakpoint
ALTER TABLE "receivable_matches" ADD COLUMN "entry_index" integer;--> statement-breakpoint
ALTER TABLE "unmatched_entries" ADD COLUMN "creditor_reference" text;--> statement-breakpoint
ALTER TABLE "unmatched_entries" ADD COLUMN "matched_minor" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "receivable_matches" ADD CONSTRAINT "receivable_matches_unmatched_entry_id_unmatched_entries_id_fk" FOREIGN KEY ("unmatched_entry_id") REFERENCES "public"."unmatched_entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "receivable_matches_entry_idx" ON "receivable_matches" USING btree ("unmatched_entry_id") WHERE unmatched_entry_id IS NOT NULL;--> statement-breakpoint
ALTER TABLE "receivable_matches" ADD CONSTRAINT "receivable_matches_side_ck" CHECK (num_nonnulls(incoming_payment_id, unmatched_entry_id) = 1 AND (unmatched_entry_id IS NULL) = (entry_document_id IS NULL));--> statement-breakpoint
ALTER TABLE "unmatched_entries" ADD CONSTRAINT "unmatched_entries_matched_ck" CHECK (matched_minor >= 0 AND matched_minor <= amount_minor);