import type { BankChannel, DeliveryReceipt, OutboundFile } from '../../channels/channel.ts';
import { ChannelError, permanentChannelError } from '../../channels/errors.ts';
import { transactionWithRetry } from '../../db/conflict-retry.ts';
import type { CompanyScope } from '../../db/executor.ts';
import { findConnectionFor } from '../../db/repositories/connections.ts';
import { recordDeliveryClaims, releaseDeliveryClaims } from '../../db/repositories/delivery-claims.ts';
import {
  type JournalDocumentRow,
  lockDocuments,
  outboundOf,
  updateDocumentStatuses,
} from '../../db/repositories/journal-documents.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { deliveryTransition, documentTransition } from '../../domain/lifecycle/index.ts';
import type { JobPayload } from '../../workers/jobs.ts';
import { type AuditEvent, recordEvents } from '../audit/record.ts';
import { applyHeldStatusReports } from '../bank-files/held-reports.ts';
import { type ChannelFailure, channelFailureOf, reportSignatureRefusal } from '../connections/bank-refusal.ts';
import { openConnectionChannel } from '../connections/channel-health.ts';
import { isEbicsStateRefusal, noteEbicsRefusal } from '../connections/ebics.ts';
import type { AppContext } from '../context.ts';
import { emitPaymentEvents, type PaymentEvent } from '../events/outbox.ts';
import { scheduleFollowUpPickups } from './follow-up-pickup.ts';

export type DeliveryJob = JobPayload<'bankDelivery'>;
/**
 * The worker process's claim owner (src/db/claim-owner.ts): claims made under its key are taken up
 * by another process the moment this one's database session ends (docs/adr/0059). Without one
 * (tests, tools) a claim is bounded by the job's heartbeat and lease only.
 */
export type ClaimOwnerKey = { key(): number | undefined };
export type DeliveryAttempt = { retryCount: number; retryLimit: number };
/**
 * What became of one delivery job: `delivered`; `retry` (a retryable failure with attempts left:
 * the queue runs the job again after its backoff); `failed` (permanent, or the last attempt: the
 * document says why); `skipped` (nothing to send: cancelled, delivered or claimed meanwhile).
 */
export type DeliveryOutcome = 'delivered' | 'retry' | 'failed' | 'skipped';

type Claimed = { doc: JournalDocumentRow; scope: CompanyScope; attempt: DeliveryAttempt; index: number };
type Sent = Claimed & ({ ok: true; receipt: DeliveryReceipt } | { ok: false; failure: ChannelFailure });

/** How many channel sessions (one per company, bank and environment in a batch) send at once. */
const SESSIONS_AT_ONCE = 4;

/**
 * The bank-delivery jobs of one batch (issues 6 and 21), in three steps so that no transaction is
 * open while a bank is called:
 * 1. claim: one short transaction locks the documents (company, then id order: the pipeline's lock
 *    order, docs/adr/0012) and moves each claimable delivery to `in-progress`;
 * 2. send: outside any transaction, one channel session per company, bank and environment;
 * 3. record: one transaction locks the documents again in the same order, records each outcome
 *    (delivered: document `sent`; a retryable failure: `retrying`; a permanent failure or the last
 *    attempt: `failed`, with the reason on the document), applies the bank's reports that a pickup
 *    held while the delivery was under way (docs/adr/0074) and appends the audit events last.
 * Both transactions run again on a deadlock or serialization failure. A worker killed between send
 * and record loses nothing: the job's lease expires, the next attempt sends the same file name, and
 * the channel recognises the repeat (`alreadyDelivered`).
 */
export async function deliverDocuments(
  ctx: AppContext,
  jobs: { job: DeliveryJob; attempt: DeliveryAttempt }[],
  owner?: ClaimOwnerKey,
): Promise<DeliveryOutcome[]> {
  const outcomes: DeliveryOutcome[] = jobs.map(() => 'skipped');
  const claimed = await claim(ctx, jobs, owner);
  if (claimed.length === 0) return outcomes;
  const sent = await sendAll(ctx, claimed);
  for (const s of sent) {
    if (!s.ok && s.failure.code === 'signature_invalid') await reportRefusal(ctx, s);
    if (!s.ok && isEbicsStateRefusal(s.failure)) await noteRefusalOnConnection(ctx, s);
  }
  await transactionWithRetry(ctx.db, 'delivery record', async (tx) => {
    const audit: AuditEvent[] = [];
    for (const [scope, group] of byCompany(sent)) {
      const current = new Map(
        (
          await lockDocuments(
            tx,
            scope,
            group.map((s) => s.doc.id),
          )
        ).map((d) => [d.id, d]),
      );
      // Every outcome of the company's batch in one statement per table (docs/adr/0051).
      const writes: DocumentWrite[] = [];
      const events: PaymentEvent[] = [];
      for (const s of group) {
        const doc = current.get(s.doc.id);
        if (!doc) continue;
        const recorded = s.ok
          ? recordDelivered(ctx, s, doc, s.receipt, audit)
          : recordFailure(ctx, s, doc, s.failure, audit);
        outcomes[s.index] = recorded.outcome;
        if (recorded.write) writes.push(recorded.write);
        if (recorded.event) events.push(recorded.event);
      }
      await updateDocumentStatuses(tx, scope, writes, ctx.clock.now());
      await emitPaymentEvents(ctx, tx, events);
      // What the bank answered while these deliveries were under way is applied now (docs/adr/0074).
      await applyHeldStatusReports(
        ctx,
        tx,
        scope,
        writes.flatMap((w) => (w.delivery && w.delivery.to !== 'retrying' ? [w.id] : [])),
        audit,
      );
      if (owner) {
        await releaseDeliveryClaims(
          tx,
          scope,
          group.map((s) => s.doc.id),
        );
      }
    }
    // The chain heads last: after every document row (docs/adr/0012).
    await recordEvents(ctx, tx, audit);
  });
  // Recorded first, so the bank's answer finds its documents sent (docs/adr/0065).
  await scheduleFollowUpPickups(
    ctx,
    sent.flatMap((s) =>
      s.ok
        ? [{ ...s.scope, bankKey: s.doc.bankKey ?? '', environment: s.doc.environment, channel: s.receipt.channel }]
        : [],
    ),
  );
  return outcomes;
}

/** One delivery job alone (tests, tools): throws when the queue should run it again. */
export async function deliverDocument(ctx: AppContext, job: DeliveryJob, attempt: DeliveryAttempt): Promise<void> {
  const [outcome] = await deliverDocuments(ctx, [{ job, attempt }]);
  if (outcome === 'retry') throw new Error(`delivery of ${job.documentId} failed; it is retried`);
}

function byCompany<T extends { scope: CompanyScope; doc: { id: string } }>(items: T[]): [CompanyScope, T[]][] {
  const groups = new Map<string, [CompanyScope, T[]]>();
  for (const item of items) {
    const key = `${item.scope.platformId}\u0000${item.scope.companyId}`;
    const group = groups.get(key) ?? [item.scope, []];
    group[1].push(item);
    groups.set(key, group);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, group]) => {
      group[1].sort((a, b) => (a.doc.id < b.doc.id ? -1 : a.doc.id > b.doc.id ? 1 : 0));
      return group;
    });
}

async function claim(
  ctx: AppContext,
  jobs: { job: DeliveryJob; attempt: DeliveryAttempt }[],
  owner: ClaimOwnerKey | undefined,
): Promise<Claimed[]> {
  const wanted = jobs.map(({ job, attempt }, index) => ({
    scope: { platformId: job.platformId, companyId: job.companyId },
    doc: { id: job.documentId },
    attempt,
    index,
  }));
  return transactionWithRetry(ctx.db, 'delivery claim', async (tx) => {
    const claimed: Claimed[] = [];
    const now = ctx.clock.now();
    // Read once per attempt: the claims of this transaction all carry the key held when it began.
    const ownerKey = owner?.key();
    for (const [scope, group] of byCompany(wanted)) {
      const docs = new Map(
        (
          await lockDocuments(
            tx,
            scope,
            group.map((g) => g.doc.id),
          )
        ).map((d) => [d.id, d]),
      );
      const seen = new Set<string>();
      const moves: DocumentWrite[] = [];
      for (const g of group) {
        const d = docs.get(g.doc.id);
        // A job repeated in one batch (a lease that expired while its first run went on) sends once.
        if (!d || seen.has(d.id)) continue;
        seen.add(d.id);
        if (d.direction !== 'outbound' || d.status !== 'converted' || d.deliveryStatus === null) continue;
        const move = deliveryTransition(d.deliveryStatus, { type: 'claimed' });
        if (!move.ok) continue;
        moves.push({ id: d.id, from: d.status, to: d.status, delivery: { from: d.deliveryStatus, to: move.to } });
        claimed.push({ doc: { ...d, deliveryStatus: move.to }, scope, attempt: g.attempt, index: g.index });
      }
      await updateDocumentStatuses(tx, scope, moves, now);
      if (ownerKey !== undefined) {
        await recordDeliveryClaims(
          tx,
          scope,
          moves.map((m) => m.id),
          ownerKey,
          now,
        );
      }
    }
    return claimed;
  });
}

/** Sends every claimed document: one channel session per company, bank and environment. */
async function sendAll(ctx: AppContext, claimed: Claimed[]): Promise<Sent[]> {
  const sessions = new Map<string, Claimed[]>();
  for (const c of claimed) {
    const key = `${c.scope.platformId}\u0000${c.scope.companyId}\u0000${c.doc.bankKey}\u0000${c.doc.environment}`;
    sessions.set(key, [...(sessions.get(key) ?? []), c]);
  }
  const queue = [...sessions.values()];
  const sent: Sent[] = [];
  const runner = async () => {
    for (let group = queue.shift(); group; group = queue.shift()) sent.push(...(await sendSession(ctx, group)));
  };
  await Promise.all(Array.from({ length: Math.min(SESSIONS_AT_ONCE, queue.length) }, runner));
  return sent;
}

async function sendSession(ctx: AppContext, group: Claimed[]): Promise<Sent[]> {
  const { scope, doc: first } = group[0]!;
  const bankKey = first.bankKey ?? '';
  const failAll = (error: unknown): Sent[] =>
    group.map((c) => ({ ...c, ok: false as const, failure: channelFailureOf(error) }));
  let channel: ReturnType<AppContext['channels']['open']>;
  try {
    if (getProfile(bankKey)?.deliveryMode !== 'host-to-host') {
      throw permanentChannelError('not_host_to_host', `${bankKey} takes no host-to-host delivery`);
    }
    const connection = await findConnectionFor(ctx.db, scope, bankKey, first.environment);
    if (connection?.status !== 'active') {
      throw permanentChannelError('not_configured', `no active ${first.environment} connection to ${bankKey}`);
    }
    channel = openConnectionChannel(ctx, connection);
  } catch (error) {
    return failAll(error);
  }
  try {
    if (channel.deliverMany) return await sendBatch(ctx, channel, group);
    return await sendEach(ctx, channel, group);
  } finally {
    await channel.close().catch(() => {});
  }
}

/**
 * A session's files one `deliver` each, up to the channel's `deliveriesInFlight` at once (each
 * document of the group once: the claim took each once). A failure that means the session is gone
 * (or refused us) fails the files not yet started the same way; those under way finish.
 */
async function sendEach(ctx: AppContext, channel: BankChannel, group: Claimed[]): Promise<Sent[]> {
  const sent: Sent[] = [];
  let next = 0;
  let gone: unknown;
  const lane = async () => {
    for (let i = next++; i < group.length; i = next++) {
      const c = group[i]!;
      if (gone !== undefined) {
        sent.push({ ...c, ok: false, failure: channelFailureOf(gone) });
        continue;
      }
      try {
        const receipt = await channel.deliver(outboundFileOf(ctx, c));
        sent.push({ ...c, ok: true, receipt });
      } catch (error) {
        sent.push({ ...c, ok: false, failure: channelFailureOf(error) });
        if (error instanceof ChannelError && error.code !== 'bank_refused' && error.code !== 'no_file') gone ??= error;
      }
    }
  };
  const lanes = Math.max(1, Math.min(channel.deliveriesInFlight ?? 1, group.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return sent;
}

/** The file a claimed document delivers: its name stable per document, so a retried delivery is recognised. */
function outboundFileOf(ctx: AppContext, c: Claimed): OutboundFile {
  if (!c.doc.fileSealed) throw permanentChannelError('no_file', `${c.doc.journalNo} has no file to deliver`);
  return {
    fileName: `${c.doc.journalNo}-${c.doc.id}.xml`,
    content: ctx.encryptor.decrypt(c.doc.fileSealed),
    documentId: c.doc.id,
    messageId: c.doc.messageId,
  };
}

/** A session's files in one call where the channel takes a batch (deliverMany): all taken, or all failed. */
async function sendBatch(ctx: AppContext, channel: BankChannel, group: Claimed[]): Promise<Sent[]> {
  const sent: Sent[] = [];
  const files: { c: Claimed; file: OutboundFile }[] = [];
  for (const c of group) {
    try {
      files.push({ c, file: outboundFileOf(ctx, c) });
    } catch (error) {
      sent.push({ ...c, ok: false, failure: channelFailureOf(error) });
    }
  }
  if (files.length === 0) return sent;
  try {
    const receipts = await channel.deliverMany!(files.map((f) => f.file));
    for (const [i, { c }] of files.entries()) sent.push({ ...c, ok: true, receipt: receipts[i]! });
  } catch (error) {
    for (const { c } of files) sent.push({ ...c, ok: false, failure: channelFailureOf(error) });
  }
  return sent;
}

/** An EBICS bank key change or lock takes the connection out of service with the reason (src/app/connections/ebics.ts). */
async function noteRefusalOnConnection(ctx: AppContext, s: Sent & { ok: false }): Promise<void> {
  const connection = await findConnectionFor(ctx.db, s.scope, s.doc.bankKey ?? '', s.doc.environment);
  if (connection) await noteEbicsRefusal(ctx, connection, s.failure);
}

async function reportRefusal(ctx: AppContext, s: Sent & { ok: false }): Promise<void> {
  const connection = await findConnectionFor(ctx.db, s.scope, s.doc.bankKey ?? '', s.doc.environment);
  if (connection) {
    await reportSignatureRefusal(ctx, connection, 'uploadFile', s.failure, {
      documentId: s.doc.id,
      journalNo: s.doc.journalNo,
    });
  }
}

/** What recording an outcome writes: the document's statuses and details, and its payment event. */
type DocumentWrite = Parameters<typeof updateDocumentStatuses>[2][number];
type Recorded = { outcome: DeliveryOutcome; write?: DocumentWrite; event?: PaymentEvent };

function recordDelivered(
  ctx: AppContext,
  s: Claimed,
  current: JournalDocumentRow,
  receipt: DeliveryReceipt,
  audit: AuditEvent[],
): Recorded {
  const now = ctx.clock.now();
  // Only the channel's confirmation makes a host-to-host document sent (documentTransition).
  const confirmed = deliveryTransition(current.deliveryStatus ?? 'not-applicable', { type: 'confirmed' });
  const sent = documentTransition(outboundOf(current), { type: 'delivery-confirmed' });
  ctx.metrics.deliveryAttempt(current.bankKey, receipt.channel, 'delivered');
  if (!confirmed.ok || !sent.ok) {
    ctx.logger.warn(
      { documentId: current.id, status: current.status, deliveryStatus: current.deliveryStatus },
      'delivered document changed meanwhile',
    );
    return { outcome: 'skipped' };
  }
  const write: DocumentWrite = {
    id: current.id,
    from: current.status,
    to: sent.to,
    delivery: { from: current.deliveryStatus, to: confirmed.to },
    details: {
      delivery: {
        channel: receipt.channel,
        reference: receipt.reference,
        deliveredAt: now.toISOString(),
        attempts: s.attempt.retryCount + 1,
        ...(receipt.evidence ? { evidence: receipt.evidence } : {}),
      },
    },
  };
  audit.push({
    platformId: s.scope.platformId,
    companyId: s.scope.companyId,
    type: 'payment.delivered',
    message: `${current.journalNo} delivered to ${current.bankKey} over ${receipt.channel} (${receipt.reference})`,
    metadata: {
      documentId: current.id,
      journalNo: current.journalNo,
      reference: receipt.reference,
      alreadyDelivered: receipt.alreadyDelivered,
    },
    bankKey: current.bankKey,
    environment: current.environment,
  });
  return {
    outcome: 'delivered',
    write,
    ...(sent.to === 'sent' ? { event: { doc: current, status: 'sent' as const } } : {}),
  };
}

function recordFailure(
  ctx: AppContext,
  s: Claimed,
  current: JournalDocumentRow,
  failure: ChannelFailure,
  audit: AuditEvent[],
): Recorded {
  const attemptNo = s.attempt.retryCount + 1;
  const from = current.deliveryStatus ?? 'not-applicable';
  const move = deliveryTransition(from, {
    type: 'attempt-failed',
    permanent: !failure.retryable,
    attemptsLeft: s.attempt.retryLimit - s.attempt.retryCount,
  });
  if (!move.ok) return { outcome: 'skipped' };
  const last = move.to === 'failed';
  ctx.metrics.deliveryAttempt(
    current.bankKey,
    getProfile(current.bankKey ?? '')?.channel,
    last ? 'failed' : 'retrying',
  );
  ctx.logger.warn(
    {
      documentId: current.id,
      journalNo: current.journalNo,
      bankKey: current.bankKey,
      attempt: attemptNo,
      code: failure.code,
      retryable: failure.retryable,
      reason: failure.message,
    },
    last ? 'delivery failed; no more attempts' : 'delivery attempt failed; retried later',
  );
  const write: DocumentWrite = {
    id: current.id,
    from: current.status,
    to: current.status,
    delivery: { from: current.deliveryStatus, to: move.to },
    details: {
      delivery: {
        lastError: failure.message,
        errorCode: failure.code,
        retryable: failure.retryable,
        attempts: attemptNo,
        ...(last ? { failedReason: failure.message } : {}),
      },
    },
  };
  audit.push({
    platformId: s.scope.platformId,
    companyId: s.scope.companyId,
    type: last ? 'payment.delivery_failed' : 'payment.delivery_retrying',
    message: `${current.journalNo} delivery attempt ${attemptNo} failed${last ? (failure.retryable ? '; no more retries' : '; permanent') : ''}: ${failure.message}`,
    metadata: {
      documentId: current.id,
      journalNo: current.journalNo,
      attempt: attemptNo,
      error: failure.message,
      code: failure.code,
      retryable: failure.retryable,
      ...(failure.bank ? { bank: failure.bank } : {}),
    },
    bankKey: current.bankKey,
    environment: current.environment,
  });
  return { outcome: last ? 'failed' : 'retry', write };
}
