CREATE TABLE "delivery_requests" (
	"document_id" text PRIMARY KEY NOT NULL,
	"platform_id" text NOT NULL,
	"company_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
DROP INDEX "journal_documents_delivery_relay_idx";--> statement-breakpoint
ALTER TABLE "delivery_requests" ADD CONSTRAINT "delivery_requests_document_id_journal_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."journal_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "delivery_requests_created_idx" ON "delivery_requests" USING btree ("created_at");--> statement-breakpoint
-- Queued documents still waiting for their job move into the outbox before the column goes.
INSERT INTO "delivery_requests" ("document_id", "platform_id", "company_id", "created_at")
SELECT "id", "platform_id", "company_id", "created_at" FROM "journal_documents"
 WHERE "delivery_status" = 'queued' AND "delivery_enqueued_at" IS NULL;
--> statement-breakpoint
ALTER TABLE "journal_documents" DROP COLUMN "delivery_enqueued_at";
--> statement-breakpoint
-- journal_outbound (migration 0009) also writes the delivery request of a queued document.
CREATE OR REPLACE FUNCTION journal_outbound(p_doc jsonb, p_lines jsonb, p_approval jsonb, p_events jsonb)
RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_doc journal_documents;
  v_no bigint;
  v_ev jsonb;
  v_chain text;
  v_seq bigint;
  v_prev text;
  v_hash text;
  v_canonical text;
BEGIN
  v_doc := jsonb_populate_record(NULL::journal_documents, p_doc);
  INSERT INTO payment_lines SELECT * FROM jsonb_populate_recordset(NULL::payment_lines, p_lines);
  IF p_approval IS NOT NULL THEN
    INSERT INTO approvals SELECT * FROM jsonb_populate_record(NULL::approvals, p_approval);
  END IF;

  INSERT INTO journal_counters (company_id, direction, last_no) VALUES (v_doc.company_id, 'outbound', 1)
  ON CONFLICT (company_id, direction) DO UPDATE SET last_no = journal_counters.last_no + 1
  RETURNING last_no INTO v_no;
  v_doc.journal_no := 'OUT-' || v_no;
  INSERT INTO journal_documents SELECT v_doc.*;
  IF v_doc.delivery_status = 'queued' THEN
    INSERT INTO delivery_requests (document_id, platform_id, company_id, created_at)
    VALUES (v_doc.id, v_doc.platform_id, v_doc.company_id, v_doc.created_at);
  END IF;

  FOR v_ev IN SELECT * FROM jsonb_array_elements(p_events) LOOP
    v_chain := v_ev->>'chain_id';
    SELECT last_seq, last_hash INTO v_seq, v_prev FROM chain_heads WHERE chain_id = v_chain FOR UPDATE;
    IF NOT FOUND THEN
      -- A new chain; a concurrent first event waits on this insert, then reads the committed head.
      INSERT INTO chain_heads (chain_id, last_seq, last_hash) VALUES (v_chain, 0, repeat('0', 64))
      ON CONFLICT (chain_id) DO NOTHING;
      SELECT last_seq, last_hash INTO v_seq, v_prev FROM chain_heads WHERE chain_id = v_chain FOR UPDATE;
    END IF;
    v_seq := v_seq + 1;
    v_canonical := replace(replace(v_ev->>'canonical', v_ev->>'seq_hole', v_seq::text), v_ev->>'journal_no_hole', v_doc.journal_no);
    v_hash := encode(sha256(convert_to(v_prev || v_canonical, 'UTF8')), 'hex');
    INSERT INTO activity_events (id, chain_id, platform_id, company_id, seq, type, message, actor_user_id, metadata,
                                 bank_key, environment, connection_id, created_at, expires_at, prev_hash, hash)
    VALUES (v_ev->>'id', v_chain, v_ev->>'platform_id', v_ev->>'company_id', v_seq, v_ev->>'type',
            replace(v_ev->>'message', v_ev->>'journal_no_hole', v_doc.journal_no), v_ev->>'actor_user_id',
            replace(v_ev->>'metadata', v_ev->>'journal_no_hole', v_doc.journal_no)::jsonb,
            v_ev->>'bank_key', v_ev->>'environment', v_ev->>'connection_id',
            (v_ev->>'created_at')::timestamptz, (v_ev->>'expires_at')::timestamptz, v_prev, v_hash);
    UPDATE chain_heads SET last_seq = v_seq, last_hash = v_hash WHERE chain_id = v_chain;
  END LOOP;
  RETURN v_doc.journal_no;
END;
$$;
