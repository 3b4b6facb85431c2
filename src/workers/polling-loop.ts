import type { AppContext } from '../app/context.ts';

/**
 * A worker's polling loop: runs `cycle` again at once while it reports work done, and every
 * `idleMs` otherwise. Its claims use SKIP LOCKED, so any number of worker processes run the same
 * loop side by side. In a ROLE=all process each cycle first yields to a saturated API (docs/adr/0083).
 * `stop()` ends it after the cycle in progress.
 */
export type PollingLoop = { stop(): Promise<void> };

export function startPollingLoop(
  ctx: AppContext,
  name: string,
  cycle: () => Promise<boolean>,
  idleMs: number,
): PollingLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  const run = async () => {
    while (!stopped) {
      let busy = false;
      try {
        await ctx.apiLoad?.yieldToApi();
        busy = await cycle();
        ctx.metrics.workerCycle(name);
      } catch (err) {
        if (!stopped) ctx.logger.warn({ err }, `${name} cycle failed`);
      }
      if (stopped) break;
      if (!busy) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, idleMs);
          timer.unref();
        });
      }
    }
  };
  const running = run();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await running;
    },
  };
}
