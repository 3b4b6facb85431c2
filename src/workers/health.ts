import type { PgBoss } from 'pg-boss';
import type { WorkerStatus } from '../app/system/readiness.ts';
import type { Clock } from '../platform/clock.ts';

/**
 * Whether this process's workers are alive, for GET /ready (ROLE=worker|all): started and not
 * stopped, every polling loop (delivery relay, webhooks) finished a cycle lately, and every pg-boss
 * worker fetched or finished a job lately. A loop or handler stuck longer than `stallMs` (an
 * outbound call that never returns, a lost connection) makes the process unready, so an
 * orchestrator restarts it; the work it held is claimed again by the others (SKIP LOCKED, job expiry).
 */
export type WorkerHealth = {
  /** A polling loop finished a cycle (wired through the metrics port's `workerCycle`). */
  beat(loop: string): void;
  started(boss: PgBoss): void;
  stopped(): void;
  status(): WorkerStatus;
};

export function createWorkerHealth(clock: Clock, stallMs: number): WorkerHealth {
  const beats = new Map<string, number>();
  let boss: PgBoss | undefined;
  let state: 'starting' | 'running' | 'stopped' = 'starting';
  return {
    beat(loop) {
      beats.set(loop, clock.now().getTime());
    },
    started(b) {
      boss = b;
      state = 'running';
      b.on('stopped', () => {
        state = 'stopped';
      });
    },
    stopped() {
      state = 'stopped';
    },
    status() {
      if (state !== 'running' || !boss) return { running: false, stalled: [] };
      const now = clock.now().getTime();
      const stalled = new Set<string>();
      for (const [loop, at] of beats) if (now - at > stallMs) stalled.add(loop);
      for (const w of boss.getWipData()) {
        const last = Math.max(w.createdOn, w.lastFetchedOn ?? 0, w.lastJobEndedOn ?? 0);
        if (w.state !== 'active' || now - last > stallMs) stalled.add(w.name);
      }
      return { running: true, stalled: [...stalled].sort() };
    },
  };
}
