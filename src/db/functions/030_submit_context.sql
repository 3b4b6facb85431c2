-- What a submit's conversion and approval depend on: the company's platform, its connection settings
-- and status for the bank and environment, and its enabled approval policies; NULL when the company does not
-- exist. One definition for the read before conversion (loadSubmitContext) and for the check inside
-- the journaling statement: the application may convert with a context it read earlier, and the
-- statement that journals compares that context's text with the current one
-- (docs/adr/0011-submit-hot-path.md).
CREATE OR REPLACE FUNCTION submit_context(p_platform_id text, p_company_id text, p_bank_key text, p_environment text)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'platform_id', c.platform_id,
    'settings', x.settings,
    -- The status of the company's connection to the bank in the environment (NULL: none): a
    -- host-to-host submit without an active one answers 409 connection_not_ready (issue 23), and the
    -- context check refuses a submit converted while it was different.
    'connection_status', x.status,
    -- Each policy with the rules an approval freezes at submit (docs/adr/0017-maker-checker-approvals.md):
    -- a policy edited after the read makes the context stale, so a submit never freezes old rules.
    'policies', (SELECT jsonb_agg(jsonb_build_object('id', p.id, 'name', p.name, 'enabled', p.enabled,
                         'environment', p.environment, 'currency', p.currency, 'min_amount', p.min_amount,
                         'bank_keys', p.bank_keys, 'required_approvals', p.required_approvals,
                         'groups', p.groups, 'require_one_from_each_group', p.require_one_from_each_group,
                         'ordered_approval', p.ordered_approval, 'two_factor_required', p.two_factor_required,
                         'updated_at', p.updated_at)
                         ORDER BY p.created_at, p.id)
                   FROM approval_policies p
                  WHERE p.platform_id = p_platform_id AND p.company_id = c.id AND p.enabled))
    FROM companies c
    LEFT JOIN connections x ON x.platform_id = p_platform_id AND x.company_id = c.id
                           AND x.bank_key = p_bank_key AND x.environment = p_environment
   WHERE c.id = p_company_id;
$$;

-- What a submit is refused for before its claim: 'revoked' when the API key it names is no longer
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
