-- Every API process keeps the keys it found active for a moment (docs/adr/0049); each LISTENs on
-- api_key_revoked and forgets a key the moment its revocation commits (NOTIFY is sent at commit, to
-- every listener). A trigger, so that no way of revoking a key is missed: the API, the dashboard,
-- a platform or user erased (the rows deleted), an operator's UPDATE.
CREATE OR REPLACE FUNCTION api_key_revoked_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_key_revoked', OLD.id);
  RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER api_keys_revoked_notify AFTER UPDATE OF revoked_at ON api_keys
FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
EXECUTE FUNCTION api_key_revoked_notify();
CREATE OR REPLACE TRIGGER api_keys_deleted_notify AFTER DELETE ON api_keys
FOR EACH ROW WHEN (OLD.revoked_at IS NULL)
EXECUTE FUNCTION api_key_revoked_notify();
