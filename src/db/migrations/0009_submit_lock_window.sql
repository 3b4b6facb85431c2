-- A submit's payment lines and approval may be written before their document inside one transaction:
-- their foreign keys to journal_documents are checked at commit.
ALTER TABLE "payment_lines" ALTER CONSTRAINT "payment_lines_document_id_journal_documents_id_fk" DEFERRABLE INITIALLY DEFERRED;
--> statement-breakpoint
ALTER TABLE "approvals" ALTER CONSTRAINT "approvals_document_id_journal_documents_id_fk" DEFERRABLE INITIALLY DEFERRED;
--> statement-breakpoint
-- journal_outbound (migration 0007), with a shorter per-company lock window. The journal counter and
-- the chain head serialise a company's submits from the moment they are taken until commit, so
-- everything that does not need them comes first (lines, approval), the counter is bumped inline
-- (no SQL-function call), and the chain head is locked, read and moved on in two light statements
-- (one new row version instead of two). Same rows, same numbers, same hashes.
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
