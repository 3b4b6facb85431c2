-- The claim half of a submit: non-blocking, transaction-scoped advisory locks on the company's
-- idempotency key and message id (a second request while the first is open is 'in-flight'), then
-- whether an outbound document with that key or message id exists already ('earlier': the caller
-- reads it and replays or refuses). 'clear' means the caller may journal. Advisory locks are
-- re-entrant within a session, so a production submit that claimed before its billing gates claims
-- again, clear, inside journal_outbound.
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
