-- Submits in one statement and one transaction (group commit, src/db/submit-batcher.ts; a production
-- submit is a batch of one). Not isolated, the items are journaled together by journal_outbound: an
-- error in one fails the statement and nothing is written; the batcher then runs the same items
-- isolated, each through journal_outbound as a batch of one in its own subtransaction, so one failing
-- item ('error:<sqlstate>:<message>') leaves the others intact.
CREATE OR REPLACE FUNCTION journal_submit_batch(p_items jsonb, p_isolated boolean) RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_item jsonb;
  v_result text;
  v_results jsonb := '[]'::jsonb;
BEGIN
  IF NOT p_isolated THEN
    RETURN journal_outbound(p_items);
  END IF;
  FOR v_item IN SELECT * FROM jsonb_array_elements(p_items) LOOP
    BEGIN
      v_result := journal_outbound(jsonb_build_array(v_item))->>0;
    EXCEPTION WHEN OTHERS THEN
      v_result := 'error:' || SQLSTATE || ':' || SQLERRM;
    END;
    v_results := v_results || to_jsonb(v_result);
  END LOOP;
  RETURN v_results;
END;
$$;
