-- What a submit's conversion and approval depend on: the company's platform, its connection settings
-- for the bank and environment, and its enabled approval policies; NULL when the company does not
-- exist. One definition for the read before conversion (loadSubmitContext) and for the check inside
-- journal_submit_batch: the application may convert with a context it read earlier, and the statement
-- that journals compares that context's text with the current one (docs/adr/0011-submit-hot-path.md).
CREATE OR REPLACE FUNCTION submit_context(p_platform_id text, p_company_id text, p_bank_key text, p_environment text)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'platform_id', c.platform_id,
    'settings', (SELECT x.settings FROM connections x
                  WHERE x.platform_id = p_platform_id AND x.company_id = c.id
                    AND x.bank_key = p_bank_key AND x.environment = p_environment),
    'policies', (SELECT jsonb_agg(jsonb_build_object('id', p.id, 'enabled', p.enabled, 'environment', p.environment,
                         'currency', p.currency, 'min_amount', p.min_amount, 'bank_keys', p.bank_keys)
                         ORDER BY p.created_at, p.id)
                   FROM approval_policies p
                  WHERE p.platform_id = p_platform_id AND p.company_id = c.id AND p.enabled))
    FROM companies c WHERE c.id = p_company_id;
$$;
--> statement-breakpoint
-- One item of a batch: the API key still active (when the item names one), the context it was
-- converted with still current (when it carries one), then claim and journal as before. Answers
-- 'revoked', 'stale-context', 'in-flight', 'earlier' or the journal number.
CREATE OR REPLACE FUNCTION journal_submit_item(p_item jsonb) RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_claim text;
BEGIN
  IF p_item->>'api_key_id' IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM api_keys k
        WHERE k.id = p_item->>'api_key_id' AND k.platform_id = p_item->>'platform_id' AND k.revoked_at IS NULL) THEN
    RETURN 'revoked';
  END IF;
  IF p_item->>'context' IS NOT NULL
     AND submit_context(p_item->>'platform_id', p_item->>'company_id', p_item->>'bank_key', p_item->>'environment')::text
         IS DISTINCT FROM p_item->>'context' THEN
    RETURN 'stale-context';
  END IF;
  v_claim := journal_submit_claim(p_item->>'platform_id', p_item->>'company_id', p_item->>'key', p_item->>'message_id');
  IF v_claim <> 'clear' THEN RETURN v_claim; END IF;
  RETURN journal_outbound(p_item->'document', p_item->'lines', NULLIF(p_item->'approval', 'null'::jsonb), p_item->'events');
END;
$$;
--> statement-breakpoint
-- Several test-environment submits in one statement and one transaction (group commit, see
-- src/db/submit-batcher.ts). Without isolation, the items share the transaction: an error in one
-- fails the statement and nothing is written; the batcher then runs the same items isolated, each in
-- its own subtransaction, so one failing item leaves the others intact ('error:<sqlstate>:<message>').
-- Subtransactions cost about a tenth of a batch's time, so they are paid only when an item failed.
CREATE OR REPLACE FUNCTION journal_submit_batch(p_items jsonb, p_isolated boolean) RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_item jsonb;
  v_result text;
  v_results jsonb := '[]'::jsonb;
BEGIN
  FOR v_item IN SELECT * FROM jsonb_array_elements(p_items) LOOP
    IF p_isolated THEN
      BEGIN
        v_result := journal_submit_item(v_item);
      EXCEPTION WHEN OTHERS THEN
        v_result := 'error:' || SQLSTATE || ':' || SQLERRM;
      END;
    ELSE
      v_result := journal_submit_item(v_item);
    END IF;
    v_results := v_results || to_jsonb(v_result);
  END LOOP;
  RETURN v_results;
END;
$$;
--> statement-breakpoint
DROP FUNCTION IF EXISTS journal_submit_batch(jsonb);
