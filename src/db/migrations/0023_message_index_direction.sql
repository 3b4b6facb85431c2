DROP INDEX "journal_documents_message_idx";--> statement-breakpoint
CREATE INDEX "journal_documents_message_idx" ON "journal_documents" USING btree ("company_id","direction","message_id");