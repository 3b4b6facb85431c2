import type { PgBoss } from 'pg-boss';
import { expireApprovals } from '../app/approvals/expire.ts';
import { renewExpiringCertificates } from '../app/connections/renew.ts';
import type { AppContext } from '../app/context.ts';
import { runConversionJob } from '../app/conversion/run-job.ts';
import { deliverDocuments } from '../app/delivery/deliver-document.ts';
import { pickUpDemoBankAnswers } from '../app/delivery/demo-bank-answers.ts';
import { runFollowUpPickups } from '../app/delivery/follow-up-pickup.ts';
import { pickUpBankFiles } from '../app/delivery/pickup.ts';
import { relayQueuedDeliveries, requeueAbandonedDeliveries } from '../app/delivery/relay.ts';
import { removeExpiredJournal } from '../app/journal/retention.ts';
import { sweepOverdue } from '../app/receivables/overdue.ts';
import { removeIdleSandboxes } from '../app/sandbox/retention.ts';
import { holdClaimOwner } from '../db/claim-owner.ts';
import { type JobEnd, workBatches } from './catalogue.ts';
import { QUEUES } from './jobs.ts';
import { startPollingLoop } from './polling-loop.ts';
import { startWebhookWorkers } from './webhooks.ts';

/** How often a worker process looks for claims of dead sessions (one indexed statement). */
const CLAIM_SWEEP_MS = 1_000;

/**
 * Worker processes: handlers for every queue of the job catalogue (src/workers/jobs.ts). pg-boss claims
 * jobs with SKIP LOCKED, so any number of worker processes share the work.
 */
export async function startWorkers(ctx: AppContext, boss: PgBoss): Promise<void> {
  await startRetention(ctx, boss);
  await workBatches(ctx, boss, 'conversion', { batchSize: 1, concurrency: 2, pollSeconds: 2 }, async ([job]) => {
    if (!job) return [];
    // A failure throws: the queue retries the conversion as its policy says.
    await runConversionJob(ctx, job.data);
    return ['completed'];
  });
  await startDelivery(ctx, boss);
  await startDemoBankReplies(ctx, boss);
  await startPickups(ctx, boss);
  // Every minute: pending approvals past their expiry (14 days) expire and cancel their documents.
  await boss.schedule(QUEUES.approvalExpiry, '* * * * *');
  await boss.work(QUEUES.approvalExpiry, async () => {
    await expireApprovals(ctx);
  });
  // Every five minutes: expected payments past their window with an open amount become overdue (one
  // event each; the readers of expected payments move them too, whichever comes first tells).
  await boss.schedule(QUEUES.expectedOverdue, '*/5 * * * *');
  await boss.work(QUEUES.expectedOverdue, async () => {
    await sweepOverdue(ctx);
  });
  await startWebhookWorkers(ctx, boss);
  ctx.logger.info('workers started');
}

/** The daily retention jobs; pg-boss fires a schedule once across all worker processes. */
async function startRetention(ctx: AppContext, boss: PgBoss): Promise<void> {
  // Daily at 03:17 UTC.
  await boss.schedule(QUEUES.sandboxRetention, '17 3 * * *');
  await boss.work(QUEUES.sandboxRetention, async () => {
    await removeIdleSandboxes(ctx);
  });
  // Daily at 02:47 UTC: journal documents and activity events past their expiresAt.
  await boss.schedule(QUEUES.journalRetention, '47 2 * * *');
  await boss.work(QUEUES.journalRetention, async () => {
    await removeExpiredJournal(ctx);
  });
}

/** The delivery relay, the claim sweep and bank delivery. */
async function startDelivery(ctx: AppContext, boss: PgBoss): Promise<void> {
  // The delivery relay: queued host-to-host documents become bank-delivery jobs, exactly once.
  const relay = startPollingLoop(ctx, 'delivery relay', async () => (await relayQueuedDeliveries(ctx)) > 0, 100);
  boss.on('stopped', () => void relay.stop());
  // And once a minute across all worker processes, whatever happens to any one polling loop.
  await boss.schedule(QUEUES.deliveryRelay, '* * * * *');
  await boss.work(QUEUES.deliveryRelay, async () => {
    while ((await relayQueuedDeliveries(ctx)) > 0);
  });
  // This process's claims are tied to a database session of its own (docs/adr/0059): when another
  // worker process dies, or its session does, this one queues its claimed deliveries again at once.
  const owner = holdClaimOwner(ctx.db.$client, ctx.logger);
  const sweep = startPollingLoop(
    ctx,
    'claim sweep',
    async () => owner.key() !== undefined && (await requeueAbandonedDeliveries(ctx)) > 0,
    CLAIM_SWEEP_MS,
  );
  boss.on('stopped', () => {
    void sweep.stop();
    void owner.stop();
  });
  // Bank delivery starts once the owner holds its key: a claim made before would carry no key, so a
  // kill of this process would leave it to the job's 120 s lease instead of the sweep (docs/adr/0059).
  await owner.held();
  // Bank delivery: batches claimed with leases, woken by NOTIFY when the relay commits new jobs.
  await workBatches(ctx, boss, 'bankDelivery', { batchSize: 50, concurrency: 2, pollSeconds: 2 }, async (jobs) => {
    const outcomes = await deliverDocuments(
      ctx,
      jobs.map((j) => ({ job: j.data, attempt: { retryCount: j.retryCount, retryLimit: j.retryLimit } })),
      owner,
    );
    return outcomes.map((o) => (o === 'retry' ? 'retry' : 'completed'));
  });
}

/**
 * The demo bank's notices that its answers are due: each starts the pickup of the company's demo
 * connection (the path every bank's files take). They are due at their reply time (startAfter),
 * which no NOTIFY announces: the process whose delivery was received wakes its workers when it is
 * due (JobQueue.whenDue); their poll is the backstop for notices another process sent. Two
 * workers: one's files are prepared while the other's transaction runs.
 */
async function startDemoBankReplies(ctx: AppContext, boss: PgBoss): Promise<void> {
  const replyWorkers: string[] = [];
  for (let i = 0; i < 2; i++) {
    replyWorkers.push(
      await workBatches(
        ctx,
        boss,
        'demoBankReply',
        { batchSize: 100, concurrency: 1, pollSeconds: 5 },
        async (jobs) => {
          const done = await pickUpDemoBankAnswers(
            ctx,
            jobs.map((j) => j.data),
          );
          return done.map((ok): JobEnd => (ok ? 'completed' : 'retry'));
        },
      ),
    );
  }
  ctx.jobs.whenDue?.('demoBankReply', () => {
    for (const id of replyWorkers) boss.notifyWorker(id);
  });
}

/** Certificate renewal, the scheduled pickup of every polled channel, and the pickup after an EBICS delivery. */
async function startPickups(ctx: AppContext, boss: PgBoss): Promise<void> {
  // Daily at 04:13 UTC: web-services certificates inside their renewal window are renewed.
  await boss.schedule(QUEUES.certificateRenewal, '13 4 * * *');
  await boss.work(QUEUES.certificateRenewal, async () => {
    await renewExpiringCertificates(ctx);
  });
  // Every minute: files the banks wrote for us on channels we poll (SFTP every run; web services on
  // the bank profile's schedule).
  await boss.schedule(QUEUES.bankPickup, '* * * * *');
  await boss.work(QUEUES.bankPickup, async () => {
    await pickUpBankFiles(ctx);
  });
  // Soon after a delivery over EBICS, that connection's pickup (src/app/delivery/follow-up-pickup.ts):
  // the jobs are delayed, so the process that sent them wakes its worker when they are due.
  const followUp = await workBatches(
    ctx,
    boss,
    'connectionPickup',
    { batchSize: 20, concurrency: 1, pollSeconds: 2 },
    async (jobs) => {
      await runFollowUpPickups(
        ctx,
        jobs.map((j) => j.data),
      );
      return jobs.map((): JobEnd => 'completed');
    },
  );
  ctx.jobs.whenDue?.('connectionPickup', () => boss.notifyWorker(followUp));
}
