-- The dashboard's document timeline (GET /journal/events?documentId=): a document's audit events found
-- through their chain and the document id in their metadata, not by walking the company's chain.
CREATE INDEX "activity_events_document_idx" ON "activity_events" USING btree ("chain_id",("metadata" ->> 'documentId'));
