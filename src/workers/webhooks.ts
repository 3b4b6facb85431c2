import type { PgBoss } from 'pg-boss';
import type { AppContext } from '../app/context.ts';
import { QUEUES } from '../app/jobs.ts';
import { runWebhookCycle } from '../app/webhooks/send.ts';
import { createWebhookTransports, type WebhookTransports } from '../app/webhooks/transports.ts';

/**
 * Webhook delivery in a worker process: a polling loop (every `idleMs` when idle, at once while
 * there is work) dispatches the outbox and sends due deliveries; both claim with SKIP LOCKED, so any
 * number of worker processes share the work. A pg-boss schedule runs one sweep a minute as well.
 * The loop ends when the job queue stops.
 */
export type WebhookLoop = { stop(): Promise<void>; transports: WebhookTransports };

export function startWebhookLoop(
  ctx: AppContext,
  options: { idleMs?: number; transports?: WebhookTransports } = {},
): WebhookLoop {
  const transports = options.transports ?? createWebhookTransports(ctx);
  const idleMs = options.idleMs ?? 250;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let wake: (() => void) | undefined;

  const tick = async () => {
    while (!stopped) {
      let busy = false;
      try {
        busy = await runWebhookCycle(ctx, transports);
      } catch (err) {
        if (!stopped) ctx.logger.warn({ err }, 'webhook cycle failed');
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
  running = tick();
  return {
    transports,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await running;
      await transports.close();
    },
  };
}

export async function startWebhookWorkers(ctx: AppContext, boss: PgBoss): Promise<void> {
  if (!(await boss.getQueue(QUEUES.webhooks))) {
    await boss.createQueue(QUEUES.webhooks, { retryLimit: 0, retryDelay: 60, retryBackoff: false });
  }
  const loop = startWebhookLoop(ctx);
  boss.on('stopped', () => void loop.stop());
  await boss.schedule(QUEUES.webhooks, '* * * * *');
  await boss.work(QUEUES.webhooks, { batchSize: 1 }, async () => {
    await runWebhookCycle(ctx, loop.transports);
  });
}
