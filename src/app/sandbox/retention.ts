import { deleteIdleSandboxes } from '../../db/repositories/platforms.ts';
import type { AppContext } from '../context.ts';

/** Sandboxes unused for 30 days are removed with everything they own (foreign keys cascade). */
export const SANDBOX_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export async function removeIdleSandboxes(ctx: AppContext): Promise<string[]> {
  const cutoff = new Date(ctx.clock.now().getTime() - SANDBOX_RETENTION_MS);
  const removed = await deleteIdleSandboxes(ctx.db, cutoff);
  if (removed.length > 0) ctx.logger.info({ count: removed.length }, 'removed idle sandboxes');
  return removed;
}
