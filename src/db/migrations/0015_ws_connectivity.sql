CREATE TABLE "connection_files" (
	"connection_id" text NOT NULL,
	"file_reference" text NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"file_type" text NOT NULL,
	"document_id" text,
	"ingested_at" timestamp with time zone NOT NULL,
	CONSTRAINT "connection_files_connection_id_file_reference_pk" PRIMARY KEY("connection_id","file_reference")
);
--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "client_cert_pem" text;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "client_key_sealed" text;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "client_cert_subject" text;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "client_cert_expiry" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "activated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "sandbox_activation_sealed" text;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "polled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "test_payment_document_id" text;--> statement-breakpoint
ALTER TABLE "connection_files" ADD CONSTRAINT "connection_files_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;