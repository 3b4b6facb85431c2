import { pendingMigrations } from '../../db/migrate.ts';
import type { AppContext } from '../context.ts';

export type Readiness = { ready: true } | { ready: false; error: string };

/** Ready when the database answers and every committed migration is applied. */
export async function checkReadiness(ctx: AppContext): Promise<Readiness> {
  try {
    const pending = await pendingMigrations(ctx.db.$client);
    if (pending > 0) return { ready: false, error: `${pending} database migration(s) pending` };
    return { ready: true };
  } catch {
    // The driver's message may carry host names; the probe only needs to know it failed.
    return { ready: false, error: 'database unreachable' };
  }
}
