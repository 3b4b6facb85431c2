import { claimQueuedDeliveries } from '../../db/repositories/journal-submit.ts';
import type { AppContext } from '../context.ts';

const BATCH = 200;

/**
 * The delivery relay (docs/adr/0010-one-statement-submit.md): a submit writes its host-to-host
 * document `queued` with a delivery request beside it (the outbox), and this turns each request into
 * the document's bank-delivery job, in one transaction per batch: the jobs are created and the
 * requests deleted together, so every queued document gets exactly one job, also across a crash (an
 * uncommitted batch is claimed again).
 * Answers how many documents it relayed (a full batch means there may be more).
 */
export async function relayQueuedDeliveries(ctx: AppContext): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    const claimed = await claimQueuedDeliveries(tx, BATCH);
    await ctx.jobs.sendMany('bankDelivery', claimed, { tx });
    return claimed.length;
  });
}
