CREATE TABLE "line_matches" (
	"id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"unmatched_entry_id" bigint NOT NULL,
	"lines" jsonb NOT NULL,
	"amount_minor" bigint NOT NULL,
	"actor_user_id" text,
	"actor" text NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"unmatched_at" timestamp with time zone,
	"unmatched_by" text,
	"unmatch_reason" text,
	CONSTRAINT "line_matches_amount_ck" CHECK (amount_minor > 0)
);
--> statement-breakpoint
ALTER TABLE "incoming_payments" ADD COLUMN "return_evidence" jsonb;--> statement-breakpoint
ALTER TABLE "unmatched_entries" ADD COLUMN "entry_index" integer;--> statement-breakpoint
ALTER TABLE "unmatched_entries" ADD COLUMN "return_reason" text;--> statement-breakpoint
ALTER TABLE "line_matches" ADD CONSTRAINT "line_matches_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "line_matches" ADD CONSTRAINT "line_matches_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "line_matches" ADD CONSTRAINT "line_matches_unmatched_entry_id_unmatched_entries_id_fk" FOREIGN KEY ("unmatched_entry_id") REFERENCES "public"."unmatched_entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "line_matches_entry_idx" ON "line_matches" USING btree ("company_id","unmatched_entry_id") WHERE unmatched_at IS NULL;