CREATE TABLE "expected_payments" (
	"id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"direction" text NOT NULL,
	"amount_min_minor" bigint NOT NULL,
	"amount_max_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"date_from" date NOT NULL,
	"date_to" date NOT NULL,
	"counterparty_name" text,
	"counterparty_iban" text,
	"counterparty_other" text,
	"reference_type" text,
	"reference_value" text,
	"remittance_contains" text,
	"metadata" jsonb NOT NULL,
	"status" text NOT NULL,
	"matched_minor" bigint DEFAULT 0 NOT NULL,
	"settled" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "expected_payments_status_ck" CHECK (status IN ('unreconciled', 'partially-reconciled', 'reconciled', 'overdue', 'archived')),
	CONSTRAINT "expected_payments_direction_ck" CHECK (direction IN ('credit', 'debit')),
	CONSTRAINT "expected_payments_reference_type_ck" CHECK (reference_type IN ('SCOR', 'FI', 'OCR', 'KID', 'NONE')),
	CONSTRAINT "expected_payments_amounts_ck" CHECK (0 < amount_min_minor AND amount_min_minor <= amount_max_minor),
	CONSTRAINT "expected_payments_matched_ck" CHECK (0 <= matched_minor AND matched_minor <= amount_max_minor),
	CONSTRAINT "expected_payments_window_ck" CHECK (date_from <= date_to)
);
--> statement-breakpoint
CREATE TABLE "incoming_payments" (
	"id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"document_id" text NOT NULL,
	"entry_index" integer NOT NULL,
	"payment_key" text NOT NULL,
	"account_key" text NOT NULL,
	"amount" text NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"booking_date" date,
	"value_date" date,
	"bank_ref" text,
	"end_to_end_id" text,
	"reference" text,
	"counterparty_name" text,
	"counterparty_iban" text,
	"remittance" text,
	"status" text NOT NULL,
	"matched_minor" bigint DEFAULT 0 NOT NULL,
	"review_note" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "incoming_payments_status_ck" CHECK (status IN ('unmatched', 'partially-matched', 'matched', 'returned')),
	CONSTRAINT "incoming_payments_matched_ck" CHECK (0 <= matched_minor AND matched_minor <= amount_minor)
);
--> statement-breakpoint
CREATE TABLE "receivable_matches" (
	"id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"incoming_payment_id" text NOT NULL,
	"expected_payment_id" text NOT NULL,
	"rule" text NOT NULL,
	"manual" boolean NOT NULL,
	"settles" boolean DEFAULT false NOT NULL,
	"amount_minor" bigint NOT NULL,
	"amount_delta_minor" bigint NOT NULL,
	"days_delta" integer NOT NULL,
	"actor_user_id" text,
	"reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"unmatched_at" timestamp with time zone,
	"unmatched_by" text,
	"unmatch_reason" text,
	CONSTRAINT "receivable_matches_amount_ck" CHECK (amount_minor > 0),
	CONSTRAINT "receivable_matches_rule_ck" CHECK (rule IN ('structured-reference', 'end-to-end-id', 'amount-counterparty', 'tolerance-remittance', 'manual'))
);
--> statement-breakpoint
CREATE TABLE "reconciliation_settings" (
	"company_id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"tolerance_amount" text NOT NULL,
	"tolerance_percent" text NOT NULL,
	"window_days" integer NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "expected_payments" ADD CONSTRAINT "expected_payments_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "expected_payments" ADD CONSTRAINT "expected_payments_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incoming_payments" ADD CONSTRAINT "incoming_payments_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incoming_payments" ADD CONSTRAINT "incoming_payments_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incoming_payments" ADD CONSTRAINT "incoming_payments_document_id_journal_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."journal_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receivable_matches" ADD CONSTRAINT "receivable_matches_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receivable_matches" ADD CONSTRAINT "receivable_matches_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receivable_matches" ADD CONSTRAINT "receivable_matches_incoming_payment_id_incoming_payments_id_fk" FOREIGN KEY ("incoming_payment_id") REFERENCES "public"."incoming_payments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receivable_matches" ADD CONSTRAINT "receivable_matches_expected_payment_id_expected_payments_id_fk" FOREIGN KEY ("expected_payment_id") REFERENCES "public"."expected_payments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reconciliation_settings" ADD CONSTRAINT "reconciliation_settings_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reconciliation_settings" ADD CONSTRAINT "reconciliation_settings_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "expected_payments_company_idx" ON "expected_payments" USING btree ("company_id","id");--> statement-breakpoint
CREATE INDEX "expected_payments_open_idx" ON "expected_payments" USING btree ("company_id","currency") WHERE status IN ('unreconciled', 'partially-reconciled', 'overdue');--> statement-breakpoint
CREATE INDEX "expected_payments_reference_idx" ON "expected_payments" USING btree ("company_id","reference_value");--> statement-breakpoint
CREATE UNIQUE INDEX "incoming_payments_key_idx" ON "incoming_payments" USING btree ("company_id","account_key","payment_key");--> statement-breakpoint
CREATE INDEX "incoming_payments_company_idx" ON "incoming_payments" USING btree ("company_id","id");--> statement-breakpoint
CREATE INDEX "incoming_payments_open_idx" ON "incoming_payments" USING btree ("company_id","id") WHERE status IN ('unmatched', 'partially-matched');--> statement-breakpoint
CREATE INDEX "incoming_payments_document_idx" ON "incoming_payments" USING btree ("document_id");--> statement-breakpoint
CREATE INDEX "receivable_matches_incoming_idx" ON "receivable_matches" USING btree ("incoming_payment_id");--> statement-breakpoint
CREATE INDEX "receivable_matches_expected_idx" ON "receivable_matches" USING btree ("expected_payment_id");