-- The one write path of outbound documents (docs/adr/0010, 0011, 0012): journals a batch of submits,
-- set by set, and answers one result per item, in order: its journal number, or why nothing was
-- journaled for it ('revoked', 'stale-context', 'in-flight', 'earlier'). Test submits arrive here in
-- group-committed batches (journal_submit_batch); a production submit is a batch of one inside its own
-- transaction, after its billing gates.
--
-- Each item: {platform_id, company_id, key, message_id, api_key_id, bank_key, environment, context,
-- document, lines, approval, events, outbox}: the rows as src/db/row-json.ts writes them, the audit
-- events with two placeholders (the journal number and the seq only exist here; audit_append fills
-- in the seq and chains them), and the webhook events for the outbox (approval.requested) with the
-- journal-number placeholder.
--
-- Locks, in the one order every writer uses: advisory (claims, in item order), journal counters
-- (company order), chain heads (chain order, in audit_append). The batcher never puts two claims on
-- the same key or message id in one batch, so no item depends on another's document.
CREATE OR REPLACE FUNCTION journal_outbound(p_items jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_results text[];
  v_numbers text[];
  v_events jsonb;
BEGIN
  -- Checks, then claims, in item order.
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

  -- Documents, and a delivery request (the delivery outbox) for each one queued for its bank.
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

  -- Webhook events (the transactional outbox), with their journal numbers filled in.
  INSERT INTO outbox_events
  SELECT o.*
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS it(item, i),
         jsonb_array_elements(coalesce(it.item->'outbox', '[]'::jsonb)) AS e(value),
         LATERAL jsonb_populate_record(NULL::outbox_events,
                   replace((e.value - 'journal_no_hole')::text, e.value->>'journal_no_hole', v_numbers[it.i])::jsonb) AS o
   WHERE v_numbers[it.i] IS NOT NULL;

  -- Audit events, with their journal numbers filled in, item by item.
  SELECT jsonb_agg(e.value || jsonb_build_object(
           'message', replace(e.value->>'message', e.value->>'journal_no_hole', v_numbers[it.i]),
           'metadata', replace(e.value->>'metadata', e.value->>'journal_no_hole', v_numbers[it.i]),
           'canonical', replace(e.value->>'canonical', e.value->>'journal_no_hole', v_numbers[it.i]))
         ORDER BY it.i, e.j)
    INTO v_events
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS it(item, i),
         jsonb_array_elements(it.item->'events') WITH ORDINALITY AS e(value, j)
   WHERE v_numbers[it.i] IS NOT NULL;
  IF v_events IS NOT NULL THEN
    PERFORM audit_append(v_events);
  END IF;

  RETURN (SELECT jsonb_agg(coalesce(v_numbers[i], v_results[i]) ORDER BY i)
            FROM generate_subscripts(v_results, 1) AS i);
END;
$$;
