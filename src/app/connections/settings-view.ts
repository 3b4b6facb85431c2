import type { ConnectionRow } from '../../db/repositories/connections.ts';
import type { AppContext } from '../context.ts';

/** Channel settings fields that are secrets: stored sealed, never read back (only whether they are set). */
export const SECRET_FIELDS = ['privateKey', 'passphrase', 'password'] as const;

/**
 * The connection's channel settings as the API shows them: every field but the secrets, and for each
 * secret only whether it is set.
 */
export function channelSettingsView(ctx: AppContext, row: ConnectionRow): Record<string, unknown> | null {
  if (!row.channelSealed) return null;
  const stored = JSON.parse(ctx.encryptor.decrypt(row.channelSealed)) as Record<string, unknown>;
  const view: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored)) {
    if ((SECRET_FIELDS as readonly string[]).includes(key)) continue;
    // Tuning knobs of tests and operators, not settings a user gives.
    if (key.endsWith('TimeoutMs')) continue;
    view[key] = value;
  }
  if (stored['kind'] === 'sftp') {
    for (const secret of SECRET_FIELDS) view[`${secret}Set`] = typeof stored[secret] === 'string';
  }
  return view;
}
