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
-- What a batch item is refused for before its claim: 'revoked' when the API key it names is no longer
-- active, 'stale-context' when the context it was converted with (when it carries one) is no longer
-- the company's; NULL when neither.
CREATE OR REPLACE FUNCTION journal_submit_check(p_item jsonb) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN p_item->>'api_key_id' IS NOT NULL AND NOT EXISTS (
           SELECT 1 FROM api_keys k
            WHERE k.id = p_item->>'api_key_id' AND k.platform_id = p_item->>'platform_id' AND k.revoked_at IS NULL)
      THEN 'revoked'
    WHEN p_item->>'context' IS NOT NULL
         AND submit_context(p_item->>'platform_id', p_item->>'company_id', p_item->>'bank_key', p_item->>'environment')::text
             IS DISTINCT FROM p_item->>'context'
      THEN 'stale-context'
  END;
$$;
--> statement-breakpoint
-- One item of a batch: its checks, then claim and journal as before. Answers 'revoked',
-- 'stale-context', 'in-flight', 'earlier' or the journal number.
CREATE OR REPLACE FUNCTION journal_submit_item(p_item jsonb) RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_claim text := journal_submit_check(p_item);
BEGIN
  IF v_claim IS NOT NULL THEN RETURN v_claim; END IF;
  v_claim := journal_submit_claim(p_item->>'platform_id', p_item->>'company_id', p_item->>'key', p_item->>'message_id');
  IF v_claim <> 'clear' THEN RETURN v_claim; END IF;
  RETURN journal_outbound(p_item->'document', p_item->'lines', NULLIF(p_item->'approval', 'null'::jsonb), p_item->'events');
END;
$$;
--> statement-breakpoint
-- Several items journaled together, set by set instead of item by item: a batch is a few statements,
-- whatever its size, where journal_submit_item runs about a dozen per item (each with its executor
-- start-up). Same rows, numbers, events and hashes as journal_submit_item would give the items one after
-- the other; the batcher never puts two claims on the same key or message id in one batch, so no item
-- depends on another's document. Locks: advisory (claims, in item order), journal counters (company
-- order), chain heads (chain order): the order journal_outbound takes them in for one company.
CREATE OR REPLACE FUNCTION journal_submit_together(p_items jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_results text[];
  v_numbers text[];
  v_ev record;
  v_chain text := NULL;
  v_seq bigint;
  v_prev text;
  v_hash text;
  v_canonical text;
  v_events jsonb := '[]'::jsonb;
  v_head_chains text[] := '{}';
  v_head_seqs bigint[] := '{}';
  v_head_hashes text[] := '{}';
BEGIN
  -- Checks and claims, in item order: what each item would get from journal_submit_item before it
  -- journals.
  SELECT array_agg(coalesce(journal_submit_check(it.item),
                            journal_submit_claim(it.item->>'platform_id', it.item->>'company_id', it.item->>'key',
                                                 it.item->>'message_id'))
                   ORDER BY it.i)
    INTO v_results
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS it(item, i);

  -- Journal numbers: each company's counter moves once by its number of clear items, which take the
  -- numbers in item order.
  WITH clear AS (
    SELECT it.i, it.item->'document'->>'company_id' AS company_id,
           row_number() OVER (PARTITION BY it.item->'document'->>'company_id' ORDER BY it.i) AS k,
           count(*) OVER (PARTITION BY it.item->'document'->>'company_id') AS n
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS it(item, i)
     WHERE v_results[it.i] = 'clear'
  ), counters AS (
    INSERT INTO journal_counters (company_id, direction, last_no)
    SELECT company_id, 'outbound', max(n) FROM clear GROUP BY company_id ORDER BY company_id
    ON CONFLICT (company_id, direction) DO UPDATE SET last_no = journal_counters.last_no + EXCLUDED.last_no
    RETURNING company_id, last_no
  )
  SELECT array_agg(CASE WHEN c.i IS NULL THEN NULL ELSE 'OUT-' || (ct.last_no - c.n + c.k) END ORDER BY it.i)
    INTO v_numbers
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS it(item, i)
    LEFT JOIN clear c ON c.i = it.i
    LEFT JOIN counters ct ON ct.company_id = c.company_id;

  INSERT INTO payment_lines
  SELECT l.*
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS it(item, i),
         LATERAL jsonb_populate_recordset(NULL::payment_lines, it.item->'lines') AS l
   WHERE v_numbers[it.i] IS NOT NULL;

  INSERT INTO approvals
  SELECT a.*
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS it(item, i),
         LATERAL jsonb_populate_record(NULL::approvals, it.item->'approval') AS a
   WHERE v_numbers[it.i] IS NOT NULL AND jsonb_typeof(it.item->'approval') = 'object';

  WITH docs AS (
    INSERT INTO journal_documents
    SELECT d.*
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS it(item, i),
           LATERAL jsonb_populate_record(NULL::journal_documents,
                     (it.item->'document') || jsonb_build_object('journal_no', v_numbers[it.i])) AS d
     WHERE v_numbers[it.i] IS NOT NULL
     ORDER BY it.i
    RETURNING id, platform_id, company_id, created_at, delivery_status
  )
  INSERT INTO delivery_requests (document_id, platform_id, company_id, created_at)
  SELECT id, platform_id, company_id, created_at FROM docs WHERE delivery_status = 'queued';

  -- Audit events: chain by chain, in item order within a chain, each on the head before it.
  INSERT INTO chain_heads (chain_id, last_seq, last_hash)
  SELECT DISTINCT e.value->>'chain_id', 0, repeat('0', 64)
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS it(item, i), jsonb_array_elements(it.item->'events') AS e
   WHERE v_numbers[it.i] IS NOT NULL
   ORDER BY 1
  ON CONFLICT (chain_id) DO NOTHING;
  FOR v_ev IN
    SELECT e.value AS ev, v_numbers[it.i] AS journal_no, h.last_seq, h.last_hash
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS it(item, i),
           jsonb_array_elements(it.item->'events') WITH ORDINALITY AS e(value, j),
           LATERAL (SELECT last_seq, last_hash FROM chain_heads WHERE chain_id = e.value->>'chain_id' FOR UPDATE) AS h
     WHERE v_numbers[it.i] IS NOT NULL
     ORDER BY e.value->>'chain_id', it.i, e.j
  LOOP
    IF v_chain IS DISTINCT FROM v_ev.ev->>'chain_id' THEN
      IF v_chain IS NOT NULL THEN
        v_head_chains := v_head_chains || v_chain;
        v_head_seqs := v_head_seqs || v_seq;
        v_head_hashes := v_head_hashes || v_prev;
      END IF;
      v_chain := v_ev.ev->>'chain_id';
      v_seq := v_ev.last_seq;
      v_prev := v_ev.last_hash;
    END IF;
    v_seq := v_seq + 1;
    v_canonical := replace(replace(v_ev.ev->>'canonical', v_ev.ev->>'seq_hole', v_seq::text),
                           v_ev.ev->>'journal_no_hole', v_ev.journal_no);
    v_hash := encode(sha256(convert_to(v_prev || v_canonical, 'UTF8')), 'hex');
    v_events := v_events || jsonb_build_object('ev', v_ev.ev, 'journal_no', v_ev.journal_no, 'seq', v_seq,
                                               'prev_hash', v_prev, 'hash', v_hash);
    v_prev := v_hash;
  END LOOP;
  IF v_chain IS NOT NULL THEN
    v_head_chains := v_head_chains || v_chain;
    v_head_seqs := v_head_seqs || v_seq;
    v_head_hashes := v_head_hashes || v_prev;
  END IF;

  INSERT INTO activity_events (id, chain_id, platform_id, company_id, seq, type, message, actor_user_id, metadata,
                               bank_key, environment, connection_id, created_at, expires_at, prev_hash, hash)
  SELECT x->'ev'->>'id', x->'ev'->>'chain_id', x->'ev'->>'platform_id', x->'ev'->>'company_id', (x->>'seq')::bigint,
         x->'ev'->>'type', replace(x->'ev'->>'message', x->'ev'->>'journal_no_hole', x->>'journal_no'),
         x->'ev'->>'actor_user_id',
         replace(x->'ev'->>'metadata', x->'ev'->>'journal_no_hole', x->>'journal_no')::jsonb,
         x->'ev'->>'bank_key', x->'ev'->>'environment', x->'ev'->>'connection_id',
         (x->'ev'->>'created_at')::timestamptz, (x->'ev'->>'expires_at')::timestamptz, x->>'prev_hash', x->>'hash'
    FROM jsonb_array_elements(v_events) AS x;
  UPDATE chain_heads h SET last_seq = u.seq, last_hash = u.hash
    FROM unnest(v_head_chains, v_head_seqs, v_head_hashes) AS u(chain_id, seq, hash)
   WHERE h.chain_id = u.chain_id;

  RETURN (SELECT jsonb_agg(coalesce(v_numbers[i], v_results[i]) ORDER BY i)
            FROM generate_subscripts(v_results, 1) AS i);
END;
$$;
--> statement-breakpoint
-- Several test-environment submits in one statement and one transaction (group commit, see
-- src/db/submit-batcher.ts). Without isolation, the items are journaled together (one transaction, set
-- by set): an error in one fails the statement and nothing is written; the batcher then runs the same
-- items isolated, one after the other, each in its own subtransaction, so one failing item leaves the
-- others intact ('error:<sqlstate>:<message>').
CREATE OR REPLACE FUNCTION journal_submit_batch(p_items jsonb, p_isolated boolean) RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_item jsonb;
  v_result text;
  v_results jsonb := '[]'::jsonb;
BEGIN
  IF NOT p_isolated THEN
    RETURN journal_submit_together(p_items);
  END IF;
  FOR v_item IN SELECT * FROM jsonb_array_elements(p_items) LOOP
    BEGIN
      v_result := journal_submit_item(v_item);
    EXCEPTION WHEN OTHERS THEN
      v_result := 'error:' || SQLSTATE || ':' || SQLERRM;
    END;
    v_results := v_results || to_jsonb(v_result);
  END LOOP;
  RETURN v_results;
END;
$$;
--> statement-breakpoint
DROP FUNCTION IF EXISTS journal_submit_batch(jsonb);
--> statement-breakpoint
-- A one-payment document (about 3 KB with its sealed payload and file) stays in its heap row instead of
-- moving its sealed file to the TOAST table: one heap and one index insert fewer per submit, about a
-- third of the document insert. Large documents still go out of line.
ALTER TABLE "journal_documents" SET (toast_tuple_target = 8160);
