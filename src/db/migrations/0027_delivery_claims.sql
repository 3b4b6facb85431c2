CREATE TABLE "delivery_claims" (
	"document_id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"owner_key" integer NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "delivery_claims" ADD CONSTRAINT "delivery_claims_document_id_journal_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."journal_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "delivery_claims_owner_idx" ON "delivery_claims" USING btree ("owner_key");