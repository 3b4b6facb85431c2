import { claimQueuedDeliveries } from '../../db/repositories/journal-submit.ts';
import type { AppContext } from '../context.ts';
import { QUEUES } from '../jobs.ts';

const BATCH = 200;

/**
 * The delivery relay (docs/adr/0010-one-statement-submit.md): a submit writes its host-to-host
 * document `queued` in one statement, and this turns each such row into its bank-delivery job, in one
 * transaction per batch: the jobs and the rows' `delivery_enqueued_at` commit together, so every
 * queued document gets exactly one job, also across a crash (an uncommitted batch is claimed again).
 * Answers how many documents it relayed (a full batch means there may be more).
 */
export async function relayQueuedDeliveries(ctx: AppContext): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    const claimed = await claimQueuedDeliveries(tx, BATCH, ctx.clock.now());
    await ctx.jobs.sendMany(QUEUES.bankDelivery, claimed, { tx });
    return claimed.length;
  });
}
