-- The sealed columns of journal_documents hold base64 of AES-GCM ciphertext, which pglz cannot shrink:
-- with the default EXTENDED storage every row wider than the TOAST threshold (every submitted
-- document) first tries to compress them and fails, then moves them out of line all the same. EXTERNAL
-- moves them out of line without the attempt (docs/adr/0080: about 6-9 us of PostgreSQL CPU per
-- submit). Rows already written keep their form; nothing reads differently.
ALTER TABLE "journal_documents" ALTER COLUMN "file_sealed" SET STORAGE EXTERNAL;--> statement-breakpoint
ALTER TABLE "journal_documents" ALTER COLUMN "payload_sealed" SET STORAGE EXTERNAL;
