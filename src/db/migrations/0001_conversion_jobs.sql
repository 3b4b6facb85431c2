CREATE TABLE "conversion_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"bank_key" text NOT NULL,
	"pain_version" text NOT NULL,
	"status" text NOT NULL,
	"request_sealed" text NOT NULL,
	"result_sealed" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"failure" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "conversion_jobs" ADD CONSTRAINT "conversion_jobs_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversion_jobs_platform_idx" ON "conversion_jobs" USING btree ("platform_id","id");