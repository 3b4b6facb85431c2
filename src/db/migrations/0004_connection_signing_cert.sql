ALTER TABLE "connections" ADD COLUMN "signing_cert_sealed" text;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "signing_cert_subject" text;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "signing_cert_expiry" timestamp with time zone;