import { takeAbandonedClaims } from '../../db/repositories/delivery-claims.ts';
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

/**
 * Deliveries claimed by a worker process whose database session is gone (killed, or its connection
 * lost: docs/adr/0059) get a bank-delivery job again, in the transaction that takes their claims, so
 * another worker sends them within seconds instead of after the dead job's lease. The document is
 * still `in-progress`, which a claim takes up; the file name is stable, so a file the dead process
 * had already handed to the bank is recognised (`alreadyDelivered`), never delivered twice.
 * Answers how many it queued again.
 */
export async function requeueAbandonedDeliveries(ctx: AppContext): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    const abandoned = await takeAbandonedClaims(tx, BATCH);
    if (abandoned.length > 0) {
      await ctx.jobs.sendMany('bankDelivery', abandoned, { tx });
      ctx.logger.warn({ deliveries: abandoned.length }, 'deliveries of a lost worker session queued again');
    }
    return abandoned.length;
  });
}
