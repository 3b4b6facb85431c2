-- The searched text of journal documents (docs/adr/0033), kept on the row by a trigger.
-- What `q` searches, lower-cased: summary, messageId, journalNo, bankKey, status, type and every total as
-- "EUR 1234.50", joined by U+001F so that a match never spans two fields. Lower-cased once here, so a
-- search is `search_text LIKE lower(pattern)`: what ILIKE does for a UTF-8 database, without lower-casing
-- every row on every search. Cut at 2,000 bytes (a btree entry holds at most about 2,700): no document
-- we write comes near it (the longest summaries are a few hundred characters).
CREATE OR REPLACE FUNCTION journal_search_text(p_summary text, p_message_id text, p_journal_no text,
  p_bank_key text, p_status text, p_type text, p_totals jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  v text := concat_ws(E'\x1f', p_summary, p_message_id, p_journal_no, p_bank_key, p_status, p_type);
  i integer;
BEGIN
  IF jsonb_typeof(p_totals) = 'array' THEN
    FOR i IN 0 .. jsonb_array_length(p_totals) - 1 LOOP
      v := v || E'\x1f' || coalesce(p_totals->i->>'currency', '') || ' ' || coalesce(p_totals->i->>'amount', '');
    END LOOP;
  END IF;
  v := lower(v);
  WHILE octet_length(v) > 2000 LOOP
    v := left(v, length(v) - greatest(1, (octet_length(v) - 2000) / 4));
  END LOOP;
  RETURN v;
END;
$$;

CREATE OR REPLACE FUNCTION journal_documents_search_text() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_text := journal_search_text(NEW.summary, NEW.message_id, NEW.journal_no, NEW.bank_key, NEW.status,
                                         NEW.type, NEW.totals);
  RETURN NEW;
END;
$$;

-- Every insert, and every update naming a searched column (or search_text itself, so it cannot be set
-- to anything else).
CREATE OR REPLACE TRIGGER journal_documents_search_text
BEFORE INSERT OR UPDATE OF summary, message_id, journal_no, bank_key, status, type, totals, search_text
ON journal_documents FOR EACH ROW EXECUTE FUNCTION journal_documents_search_text();
