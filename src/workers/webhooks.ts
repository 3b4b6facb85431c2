import type { PgBoss } from 'pg-boss';
import type { AppContext } from '../app/context.ts';
import { runWebhookCycle } from '../app/webhooks/send.ts';
import { createWebhookTransports, type WebhookTransports } from '../app/webhooks/transports.ts';
import { QUEUES } from './jobs.ts';
import { startPollingLoop } from './polling-loop.ts';

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
  const loop = startPollingLoop(ctx, 'webhook', () => runWebhookCycle(ctx, transports), options.idleMs ?? 250);
  return {
    transports,
    async stop() {
      await loop.stop();
      await transports.close();
    },
  };
}

export async function startWebhookWorkers(ctx: AppContext, boss: PgBoss): Promise<void> {
  const loop = startWebhookLoop(ctx);
  boss.on('stopped', () => void loop.stop());
  await boss.schedule(QUEUES.webhooks, '* * * * *');
  await boss.work(QUEUES.webhooks, { batchSize: 1 }, async () => {
    await runWebhookCycle(ctx, loop.transports);
  });
}
