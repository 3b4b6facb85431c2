ALTER TABLE "journal_documents" ADD COLUMN "delivery_enqueued_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "journal_documents_delivery_relay_idx" ON "journal_documents" USING btree ("created_at") WHERE delivery_status = 'queued' AND delivery_enqueued_at IS NULL;--> statement-breakpoint
-- Documents queued before this migration already got their bank-delivery job inside their submit.
UPDATE "journal_documents" SET "delivery_enqueued_at" = "created_at" WHERE "delivery_status" = 'queued';
--> statement-breakpoint
-- The claim half of a submit: non-blocking, transaction-scoped advisory locks on the company's
-- idempotency key and message id (a second request while the first is open is "in-flight"), then
-- whether an outbound document with that key or message id exists already ("earlier"; the caller
-- reads it and replays or refuses). "clear" means the caller may journal.
CREATE OR REPLACE FUNCTION journal_submit_claim(p_platform_id text, p_company_id text, p_key text, p_message_id text)
RETURNS text LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtextextended('submit-key:' || p_company_id || ':' || p_key, 0))
     OR (p_message_id IS NOT NULL
         AND NOT pg_try_advisory_xact_lock(hashtextextended('submit-msg:' || p_company_id || ':' || p_message_id, 0))) THEN
    RETURN 'in-flight';
  END IF;
  IF EXISTS (SELECT 1 FROM journal_documents d
              WHERE d.platform_id = p_platform_id AND d.company_id = p_company_id AND d.direction = 'outbound'
                AND d.idempotency_key = p_key)
     OR (p_message_id IS NOT NULL AND EXISTS (
           SELECT 1 FROM journal_documents d
            WHERE d.platform_id = p_platform_id AND d.company_id = p_company_id AND d.direction = 'outbound'
              AND d.message_id = p_message_id)) THEN
    RETURN 'earlier';
  END IF;
  RETURN 'clear';
END;
$$;
--> statement-breakpoint
-- The journaling half of a submit: the document (with the company's next OUT number), its payment
-- lines, an approval if a policy matched, and its audit events appended to the company's hash chain,
-- all in the caller's statement/transaction. The events arrive from the application with their
-- canonical JSON already built, holding two placeholders (the journal number and the seq, which only
-- exist here); the hash is SHA-256 hex of prevHash joined to that canonical JSON with both filled in,
-- exactly what src/domain/audit/hash-chain.ts computes and verifies.
CREATE OR REPLACE FUNCTION journal_outbound(p_doc jsonb, p_lines jsonb, p_approval jsonb, p_events jsonb)
RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_doc journal_documents;
  v_ev jsonb;
  v_seq bigint;
  v_prev text;
  v_hash text;
  v_canonical text;
BEGIN
  v_doc := jsonb_populate_record(NULL::journal_documents, p_doc);
  v_doc.journal_no := next_journal_no(v_doc.company_id, 'outbound');
  INSERT INTO journal_documents SELECT v_doc.*;
  INSERT INTO payment_lines SELECT * FROM jsonb_populate_recordset(NULL::payment_lines, p_lines);
  IF p_approval IS NOT NULL THEN
    INSERT INTO approvals SELECT * FROM jsonb_populate_record(NULL::approvals, p_approval);
  END IF;
  FOR v_ev IN SELECT * FROM jsonb_array_elements(p_events) LOOP
    INSERT INTO chain_heads (chain_id, last_seq, last_hash) VALUES (v_ev->>'chain_id', 1, repeat('0', 64))
    ON CONFLICT (chain_id) DO UPDATE SET last_seq = chain_heads.last_seq + 1
    RETURNING last_seq, last_hash INTO v_seq, v_prev;
    v_canonical := replace(replace(v_ev->>'canonical', v_ev->>'seq_hole', v_seq::text), v_ev->>'journal_no_hole', v_doc.journal_no);
    v_hash := encode(sha256(convert_to(v_prev || v_canonical, 'UTF8')), 'hex');
    INSERT INTO activity_events (id, chain_id, platform_id, company_id, seq, type, message, actor_user_id, metadata,
                                 bank_key, environment, connection_id, created_at, expires_at, prev_hash, hash)
    VALUES (v_ev->>'id', v_ev->>'chain_id', v_ev->>'platform_id', v_ev->>'company_id', v_seq, v_ev->>'type',
            replace(v_ev->>'message', v_ev->>'journal_no_hole', v_doc.journal_no), v_ev->>'actor_user_id',
            replace(v_ev->>'metadata', v_ev->>'journal_no_hole', v_doc.journal_no)::jsonb,
            v_ev->>'bank_key', v_ev->>'environment', v_ev->>'connection_id',
            (v_ev->>'created_at')::timestamptz, (v_ev->>'expires_at')::timestamptz, v_prev, v_hash);
    UPDATE chain_heads SET last_hash = v_hash WHERE chain_id = v_ev->>'chain_id';
  END LOOP;
  RETURN v_doc.journal_no;
END;
$$;
--> statement-breakpoint
-- A whole test-environment submit in one statement (its own transaction): claim, then journal.
-- Answers 'in-flight', 'earlier', or the new document's journal number.
CREATE OR REPLACE FUNCTION journal_submit(p_platform_id text, p_company_id text, p_key text, p_message_id text,
                                          p_doc jsonb, p_lines jsonb, p_approval jsonb, p_events jsonb)
RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_claim text := journal_submit_claim(p_platform_id, p_company_id, p_key, p_message_id);
BEGIN
  IF v_claim <> 'clear' THEN RETURN v_claim; END IF;
  RETURN journal_outbound(p_doc, p_lines, p_approval, p_events);
END;
$$;
