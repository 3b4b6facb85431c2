-- Maker-checker approvals (issue 22, docs/adr/0017-maker-checker-approvals.md): each approval keeps
-- its policy's name and rules as they were at submit, when it was decided or closed and why, and when
-- it expires. One approval per document; the queue and the expiry sweep get their own indexes.
DROP INDEX "approvals_document_idx";--> statement-breakpoint
DROP INDEX "approvals_scope_idx";--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "policy_name" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "rules" jsonb DEFAULT '{"requiredApprovals":1,"groups":[],"requireOneFromEachGroup":false,"orderedApproval":false,"twoFactorRequired":false}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "closed_reason" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "decided_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
-- Approvals written before this migration freeze their policy's rules as they are now, and expire 14
-- days after they were made, as new ones do.
UPDATE "approvals" a SET "policy_name" = p."name",
       "rules" = jsonb_build_object('requiredApprovals', p."required_approvals", 'groups', p."groups",
                                    'requireOneFromEachGroup', p."require_one_from_each_group",
                                    'orderedApproval', p."ordered_approval", 'twoFactorRequired', p."two_factor_required")
  FROM "approval_policies" p WHERE p."id" = a."policy_id";--> statement-breakpoint
UPDATE "approvals" SET "expires_at" = "created_at" + interval '14 days' WHERE "status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "approvals_document_uq" ON "approvals" USING btree ("document_id");--> statement-breakpoint
CREATE INDEX "approvals_queue_idx" ON "approvals" USING btree ("company_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "approvals_expiry_idx" ON "approvals" USING btree ("expires_at") WHERE "approvals"."status" = 'pending';