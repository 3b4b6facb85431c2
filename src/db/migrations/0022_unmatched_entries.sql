CREATE TABLE "unmatched_entries" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "unmatched_entries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"document_id" text NOT NULL,
	"account_key" text NOT NULL,
	"entry_key" text NOT NULL,
	"direction" text NOT NULL,
	"reversal" boolean NOT NULL,
	"amount" text NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"booking_date" date,
	"bank_ref" text,
	"end_to_end_id" text,
	"instruction_id" text,
	"reference" text,
	"counterparty_name" text,
	"counterparty_iban" text,
	"remittance" text,
	"note" text,
	"created_at" timestamp with time zone NOT NULL,
	"matched_document_id" text,
	"matched_at" timestamp with time zone,
	CONSTRAINT "unmatched_entries_direction_ck" CHECK (direction IN ('debit', 'credit'))
);
--> statement-breakpoint
ALTER TABLE "unmatched_entries" ADD CONSTRAINT "unmatched_entries_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unmatched_entries" ADD CONSTRAINT "unmatched_entries_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unmatched_entries" ADD CONSTRAINT "unmatched_entries_document_id_journal_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."journal_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "unmatched_entries_key_idx" ON "unmatched_entries" USING btree ("company_id","entry_key");--> statement-breakpoint
CREATE INDEX "unmatched_entries_open_idx" ON "unmatched_entries" USING btree ("company_id","id" DESC NULLS LAST) WHERE matched_document_id IS NULL;--> statement-breakpoint
CREATE INDEX "unmatched_entries_account_idx" ON "unmatched_entries" USING btree ("company_id","account_key") WHERE matched_document_id IS NULL;--> statement-breakpoint
CREATE INDEX "unmatched_entries_document_idx" ON "unmatched_entries" USING btree ("document_id");