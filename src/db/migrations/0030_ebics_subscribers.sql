ALTER TABLE "connections" ADD COLUMN "ebics_state" text;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "ebics_state_reason" text;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "ebics_keys_sealed" text;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "ebics_bank_keys_sealed" text;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "ebics_pending_bank_keys_sealed" text;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "ebics_certs_expire_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_ebics_state_ck" CHECK (ebics_state IN ('new', 'awaiting-bank', 'confirm-bank-keys', 'active', 'bank-keys-changed', 'suspended'));