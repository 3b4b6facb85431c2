-- The audit trail's only writer (docs/adr/0006-journal-and-audit.md, DESIGN.md): appends events to
-- their hash chains and answers {seq, prev_hash, hash}: arrays in the order the events were given. Every
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
  -- Per event, by its position in p_events: what the chain gave it.
  v_seqs bigint[] := '{}';
  v_prevs text[] := '{}';
  v_hashes text[] := '{}';
  -- Per chain: where its head moves to.
  v_head_chains text[] := '{}';
  v_head_seqs bigint[] := '{}';
  v_head_hashes text[] := '{}';
BEGIN
  SELECT array_agg(DISTINCT e->>'chain_id' ORDER BY e->>'chain_id') INTO v_chains
    FROM jsonb_array_elements(p_events) AS e;
  IF v_chains IS NULL THEN
    RETURN jsonb_build_object('seq', '[]'::jsonb, 'prev_hash', '[]'::jsonb, 'hash', '[]'::jsonb);
  END IF;
  -- New chains start at seq 0 with the genesis hash; a concurrent first append waits on this insert.
  INSERT INTO chain_heads (chain_id, last_seq, last_hash)
  SELECT c, 0, repeat('0', 64) FROM unnest(v_chains) AS c ORDER BY c
  ON CONFLICT (chain_id) DO NOTHING;
  PERFORM 1 FROM chain_heads WHERE chain_id = ANY (v_chains) ORDER BY chain_id FOR UPDATE;

  FOR v_ev IN
    SELECT e.value->>'chain_id' AS chain_id, e.value->>'canonical' AS canonical, e.value->>'seq_hole' AS seq_hole,
           e.i, h.last_seq, h.last_hash
      FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(value, i)
      JOIN chain_heads h ON h.chain_id = e.value->>'chain_id'
     ORDER BY h.chain_id, e.i
  LOOP
    IF v_chain IS DISTINCT FROM v_ev.chain_id THEN
      IF v_chain IS NOT NULL THEN
        v_head_chains := v_head_chains || v_chain;
        v_head_seqs := v_head_seqs || v_seq;
        v_head_hashes := v_head_hashes || v_prev;
      END IF;
      v_chain := v_ev.chain_id;
      v_seq := v_ev.last_seq;
      v_prev := v_ev.last_hash;
    END IF;
    v_seq := v_seq + 1;
    v_hash := encode(sha256(convert_to(v_prev || replace(v_ev.canonical, v_ev.seq_hole, v_seq::text), 'UTF8')), 'hex');
    v_seqs[v_ev.i] := v_seq;
    v_prevs[v_ev.i] := v_prev;
    v_hashes[v_ev.i] := v_hash;
    v_prev := v_hash;
  END LOOP;
  v_head_chains := v_head_chains || v_chain;
  v_head_seqs := v_head_seqs || v_seq;
  v_head_hashes := v_head_hashes || v_prev;

  INSERT INTO activity_events (id, chain_id, platform_id, company_id, seq, type, message, actor_user_id, metadata,
                               bank_key, environment, connection_id, created_at, expires_at, prev_hash, hash)
  SELECT e.value->>'id', e.value->>'chain_id', e.value->>'platform_id', e.value->>'company_id', v_seqs[e.i],
         e.value->>'type', e.value->>'message', e.value->>'actor_user_id', (e.value->>'metadata')::jsonb,
         e.value->>'bank_key', e.value->>'environment', e.value->>'connection_id',
         (e.value->>'created_at')::timestamptz, (e.value->>'expires_at')::timestamptz, v_prevs[e.i], v_hashes[e.i]
    FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(value, i);
  UPDATE chain_heads h SET last_seq = u.seq, last_hash = u.hash
    FROM unnest(v_head_chains, v_head_seqs, v_head_hashes) AS u(chain_id, seq, hash)
   WHERE h.chain_id = u.chain_id;

  RETURN jsonb_build_object('seq', to_jsonb(v_seqs), 'prev_hash', to_jsonb(v_prevs), 'hash', to_jsonb(v_hashes));
END;
$$;
