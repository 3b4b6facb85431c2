CREATE TABLE "held_status_reports" (
	"report_document_id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"outbound_document_id" text NOT NULL,
	"held_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "held_status_reports" ADD CONSTRAINT "held_status_reports_report_document_id_journal_documents_id_fk" FOREIGN KEY ("report_document_id") REFERENCES "public"."journal_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "held_status_reports" ADD CONSTRAINT "held_status_reports_outbound_document_id_journal_documents_id_fk" FOREIGN KEY ("outbound_document_id") REFERENCES "public"."journal_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "held_status_reports_outbound_idx" ON "held_status_reports" USING btree ("company_id","outbound_document_id");