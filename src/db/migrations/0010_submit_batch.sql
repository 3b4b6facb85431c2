-- Several test-environment submits in one statement and one transaction (group commit, see
-- src/db/submit-batcher.ts). Each item is claimed and journaled as journal_submit would, inside its
-- own subtransaction, so one failing item leaves the others intact; items come sorted by company, so
-- two batches take companies' counters and chain heads in the same order. Answers one result per
-- item, in order: 'in-flight', 'earlier', the journal number, or 'error:<sqlstate>:<message>'.
CREATE OR REPLACE FUNCTION journal_submit_batch(p_items jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_item jsonb;
  v_claim text;
  v_results jsonb := '[]'::jsonb;
BEGIN
  FOR v_item IN SELECT * FROM jsonb_array_elements(p_items) LOOP
    BEGIN
      v_claim := journal_submit_claim(v_item->>'platform_id', v_item->>'company_id', v_item->>'key', v_item->>'message_id');
      IF v_claim = 'clear' THEN
        v_claim := journal_outbound(v_item->'document', v_item->'lines', NULLIF(v_item->'approval', 'null'::jsonb),
                                    v_item->'events');
      END IF;
    EXCEPTION WHEN OTHERS THEN
      v_claim := 'error:' || SQLSTATE || ':' || SQLERRM;
    END;
    v_results := v_results || to_jsonb(v_claim);
  END LOOP;
  RETURN v_results;
END;
$$;
--> statement-breakpoint
-- Superseded by journal_submit_batch (a batch of one is the same statement).
DROP FUNCTION IF EXISTS journal_submit(text, text, text, text, jsonb, jsonb, jsonb, jsonb);
