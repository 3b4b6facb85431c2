-- Sealed payloads are base64 of AES-GCM ciphertext: incompressible. EXTERNAL storage moves large
-- values out of line without first trying (and failing) to compress them on every insert.
ALTER TABLE "journal_documents" ALTER COLUMN "payload_sealed" SET STORAGE EXTERNAL;
--> statement-breakpoint
ALTER TABLE "journal_documents" ALTER COLUMN "file_sealed" SET STORAGE EXTERNAL;
