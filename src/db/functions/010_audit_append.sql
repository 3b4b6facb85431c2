-- The audit trail's only writer (docs/adr/0006-journal-and-audit.md, DESIGN.md): appends events to
-- their hash chains and answers, per event in the order given, {id, seq, prev_hash, hash}. Every
-- writer goes through it: the submit statement (journal_outbound) and every use case
-- (src/db/repositories/activity-events.ts, appendEvents).
--
-- Each event: {id, chain_id, platform_id, company_id, type, message, actor_user_id, metadata (JSON
-- text), bank_key, environment, connection_id, created_at, expires_at, canonical, seq_hole}.
-- `canonical` is the canonical JSON of the chained fields (src/domain/audit/hash-chain.ts,
-- canonicalWithSeqHole) with the text `seq_hole` where the seq goes: the seq only exists here.
--
-- hash = SHA-256 hex of prev_hash || canonical (seq filled in). This is the formula's one SQL copy;
-- the TypeScript verifier (verifyChain, src/domain/audit/hash-chain.ts) holds the other.
--
-- Locks: the chain heads of all the events, in chain id order (one order for every writer, so two
-- appends touching the same chains queue instead of deadlocking); seq is gap-free per chain.
CREATE OR REPLACE FUNCTION audit_append(p_events jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_chains text[];
  v_ev record;
  v_chain text := NULL;
  v_seq bigint;
  v_prev text;
  v_hash text;
  v_rows jsonb := '[]'::jsonb;
BEGIN
  SELECT array_agg(DISTINCT e->>'chain_id' ORDER BY e->>'chain_id') INTO v_chains
    FROM jsonb_array_elements(p_events) AS e;
  IF v_chains IS NULL THEN
    RETURN '[]'::jsonb;
  END IF;
  -- New chains start at seq 0 with the genesis hash; a concurrent first append waits on this insert.
  INSERT INTO chain_heads (chain_id, last_seq, last_hash)
  SELECT c, 0, repeat('0', 64) FROM unnest(v_chains) AS c ORDER BY c
  ON CONFLICT (chain_id) DO NOTHING;
  PERFORM 1 FROM chain_heads WHERE chain_id = ANY (v_chains) ORDER BY chain_id FOR UPDATE;

  FOR v_ev IN
    SELECT e.value AS ev, e.i, h.last_seq, h.last_hash
      FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(value, i)
      JOIN chain_heads h ON h.chain_id = e.value->>'chain_id'
     ORDER BY h.chain_id, e.i
  LOOP
    IF v_chain IS DISTINCT FROM v_ev.ev->>'chain_id' THEN
      v_chain := v_ev.ev->>'chain_id';
      v_seq := v_ev.last_seq;
      v_prev := v_ev.last_hash;
    END IF;
    v_seq := v_seq + 1;
    v_hash := encode(sha256(convert_to(v_prev || replace(v_ev.ev->>'canonical', v_ev.ev->>'seq_hole', v_seq::text),
                                       'UTF8')), 'hex');
    v_rows := v_rows || jsonb_build_object('i', v_ev.i, 'ev', v_ev.ev, 'seq', v_seq, 'prev_hash', v_prev, 'hash', v_hash);
    v_prev := v_hash;
  END LOOP;

  INSERT INTO activity_events (id, chain_id, platform_id, company_id, seq, type, message, actor_user_id, metadata,
                               bank_key, environment, connection_id, created_at, expires_at, prev_hash, hash)
  SELECT x->'ev'->>'id', x->'ev'->>'chain_id', x->'ev'->>'platform_id', x->'ev'->>'company_id', (x->>'seq')::bigint,
         x->'ev'->>'type', x->'ev'->>'message', x->'ev'->>'actor_user_id', (x->'ev'->>'metadata')::jsonb,
         x->'ev'->>'bank_key', x->'ev'->>'environment', x->'ev'->>'connection_id',
         (x->'ev'->>'created_at')::timestamptz, (x->'ev'->>'expires_at')::timestamptz, x->>'prev_hash', x->>'hash'
    FROM jsonb_array_elements(v_rows) AS x;
  -- Each chain's head moves to its last event.
  UPDATE chain_heads h SET last_seq = l.seq, last_hash = l.hash
    FROM (SELECT DISTINCT ON (x->'ev'->>'chain_id') x->'ev'->>'chain_id' AS chain_id, (x->>'seq')::bigint AS seq,
                 x->>'hash' AS hash
            FROM jsonb_array_elements(v_rows) AS x
           ORDER BY x->'ev'->>'chain_id', (x->>'seq')::bigint DESC) AS l
   WHERE h.chain_id = l.chain_id;

  RETURN (SELECT jsonb_agg(jsonb_build_object('id', x->'ev'->>'id', 'seq', (x->>'seq')::bigint,
                                              'prev_hash', x->>'prev_hash', 'hash', x->>'hash')
                           ORDER BY (x->>'i')::bigint)
            FROM jsonb_array_elements(v_rows) AS x);
END;
$$;
