CREATE TABLE "account_statements" (
	"document_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"company_id" text NOT NULL,
	"from_date" text,
	"to_date" text,
	"sequence_number" text,
	"opening" jsonb,
	"closing" jsonb,
	"tx_count" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bank_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"account_key" text NOT NULL,
	"iban" text,
	"account_other" text,
	"country" text,
	"currency" text,
	"bank_key" text,
	"bank_name" text,
	"connected" boolean DEFAULT false NOT NULL,
	"last_received_data" timestamp with time zone,
	"latest_balance" text,
	"latest_balance_currency" text,
	"latest_balance_date" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "approval_policies" (
	"id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"environment" text DEFAULT 'any' NOT NULL,
	"currency" text,
	"min_amount" text DEFAULT '0' NOT NULL,
	"bank_keys" text[],
	"required_approvals" integer DEFAULT 1 NOT NULL,
	"groups" jsonb NOT NULL,
	"require_one_from_each_group" boolean DEFAULT false NOT NULL,
	"ordered_approval" boolean DEFAULT false NOT NULL,
	"two_factor_required" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "approvals" (
	"id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"document_id" text NOT NULL,
	"policy_id" text,
	"status" text NOT NULL,
	"maker_user_id" text,
	"decisions" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "company_billing" (
	"company_id" text PRIMARY KEY NOT NULL,
	"active_package" boolean DEFAULT false NOT NULL,
	"package_name" text,
	"production_payments_sent" integer DEFAULT 0 NOT NULL,
	"past_due_since" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "activity_events" (
	"id" text PRIMARY KEY NOT NULL,
	"chain_id" text NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text,
	"seq" bigint NOT NULL,
	"type" text NOT NULL,
	"message" text NOT NULL,
	"actor_user_id" text,
	"metadata" jsonb NOT NULL,
	"bank_key" text,
	"environment" text,
	"connection_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chain_heads" (
	"chain_id" text PRIMARY KEY NOT NULL,
	"last_seq" bigint NOT NULL,
	"last_hash" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "journal_counters" (
	"company_id" text NOT NULL,
	"direction" text NOT NULL,
	"last_no" bigint NOT NULL,
	CONSTRAINT "journal_counters_company_id_direction_pk" PRIMARY KEY("company_id","direction")
);
--> statement-breakpoint
CREATE TABLE "journal_documents" (
	"id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"journal_no" text NOT NULL,
	"direction" text NOT NULL,
	"type" text NOT NULL,
	"source_format" text NOT NULL,
	"bank_key" text,
	"environment" text NOT NULL,
	"status" text NOT NULL,
	"message_id" text,
	"import_source" text NOT NULL,
	"transaction_count" integer DEFAULT 0 NOT NULL,
	"totals" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"payment_type" text,
	"idempotency_key" text,
	"request_digest" text,
	"delivery_mode" text,
	"delivery_status" text,
	"summary" text DEFAULT '' NOT NULL,
	"account_iban" text,
	"account_currency" text,
	"content_digest" text,
	"block_index" integer,
	"payload_sealed" text,
	"file_sealed" text,
	"warnings" jsonb,
	"details" jsonb,
	"collected" boolean DEFAULT false NOT NULL,
	"collected_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "payment_lines" (
	"document_id" text NOT NULL,
	"line_index" integer NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"payment_id" text,
	"end_to_end_id" text,
	"instruction_id" text,
	"amount_minor" bigint NOT NULL,
	"amount" text NOT NULL,
	"currency" text NOT NULL,
	"payee_name" text,
	"payee_iban" text,
	"state" text DEFAULT 'pending' NOT NULL,
	"evidence" jsonb,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "payment_lines_document_id_line_index_pk" PRIMARY KEY("document_id","line_index")
);
--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "settings" jsonb;--> statement-breakpoint
ALTER TABLE "account_statements" ADD CONSTRAINT "account_statements_document_id_journal_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."journal_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_statements" ADD CONSTRAINT "account_statements_account_id_bank_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."bank_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_accounts" ADD CONSTRAINT "bank_accounts_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_accounts" ADD CONSTRAINT "bank_accounts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD CONSTRAINT "approval_policies_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD CONSTRAINT "approval_policies_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_document_id_journal_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."journal_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_policy_id_approval_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."approval_policies"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "company_billing" ADD CONSTRAINT "company_billing_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_events" ADD CONSTRAINT "activity_events_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journal_counters" ADD CONSTRAINT "journal_counters_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journal_documents" ADD CONSTRAINT "journal_documents_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journal_documents" ADD CONSTRAINT "journal_documents_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_lines" ADD CONSTRAINT "payment_lines_document_id_journal_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."journal_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "account_statements_account_idx" ON "account_statements" USING btree ("account_id","to_date");--> statement-breakpoint
CREATE UNIQUE INDEX "bank_accounts_identity_uq" ON "bank_accounts" USING btree ("company_id","account_key");--> statement-breakpoint
CREATE INDEX "bank_accounts_scope_idx" ON "bank_accounts" USING btree ("platform_id","company_id","id");--> statement-breakpoint
CREATE INDEX "approval_policies_scope_idx" ON "approval_policies" USING btree ("platform_id","company_id");--> statement-breakpoint
CREATE INDEX "approvals_document_idx" ON "approvals" USING btree ("document_id");--> statement-breakpoint
CREATE INDEX "approvals_scope_idx" ON "approvals" USING btree ("company_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "activity_events_chain_seq_uq" ON "activity_events" USING btree ("chain_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "journal_documents_no_uq" ON "journal_documents" USING btree ("company_id","journal_no");--> statement-breakpoint
CREATE UNIQUE INDEX "journal_documents_idem_uq" ON "journal_documents" USING btree ("company_id","idempotency_key") WHERE direction = 'outbound' AND idempotency_key IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "journal_documents_content_uq" ON "journal_documents" USING btree ("company_id","content_digest","block_index") WHERE direction = 'inbound' AND content_digest IS NOT NULL;--> statement-breakpoint
CREATE INDEX "journal_documents_page_idx" ON "journal_documents" USING btree ("company_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "journal_documents_message_idx" ON "journal_documents" USING btree ("company_id","message_id");--> statement-breakpoint
CREATE INDEX "journal_documents_expiry_idx" ON "journal_documents" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "payment_lines_e2e_idx" ON "payment_lines" USING btree ("company_id","end_to_end_id");