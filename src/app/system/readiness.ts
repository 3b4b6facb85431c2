import { pendingMigrations } from '../../db/migrate.ts';
import type { AppContext } from '../context.ts';

/** This process's workers (ROLE=worker|all): running, and which loops or queues have stalled. */
export type WorkerStatus = { running: boolean; stalled: string[] };
export type WorkerMonitor = { status(): WorkerStatus };

export type Readiness =
  | { ready: true; workers?: WorkerStatus }
  | { ready: false; error: string; workers?: WorkerStatus };

/**
 * Ready when the database answers and every committed migration is applied, and, in a process that
 * runs workers, when they are running with no loop or queue stalled (an orchestrator restarts a
 * process that stays unready). A process without workers (ROLE=api) answers as before.
 */
export async function checkReadiness(ctx: AppContext, workers?: WorkerMonitor): Promise<Readiness> {
  const status = workers?.status();
  const withWorkers = status ? { workers: status } : {};
  try {
    const pending = await pendingMigrations(ctx.db.$client);
    if (pending > 0) return { ready: false, error: `${pending} database migration(s) pending`, ...withWorkers };
  } catch {
    // The driver's message may carry host names; the probe only needs to know it failed.
    return { ready: false, error: 'database unreachable', ...withWorkers };
  }
  if (status && !status.running) return { ready: false, error: 'workers not running', ...withWorkers };
  if (status && status.stalled.length > 0) {
    return { ready: false, error: `workers stalled: ${status.stalled.join(', ')}`, ...withWorkers };
  }
  return { ready: true, ...withWorkers };
}
