CREATE TABLE "outbox_events" (
	"id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"dispatched_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "channel_sealed" text;--> statement-breakpoint
ALTER TABLE "payment_lines" ADD COLUMN "execution_date" text;--> statement-breakpoint
ALTER TABLE "outbox_events" ADD CONSTRAINT "outbox_events_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outbox_events_pending_idx" ON "outbox_events" USING btree ("dispatched_at","created_at");