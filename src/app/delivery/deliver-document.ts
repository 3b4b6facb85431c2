import type { CompanyScope } from '../../db/executor.ts';
import { findConnectionFor } from '../../db/repositories/connections.ts';
import {
  type JournalDocumentRow,
  lockDocument,
  mergeDocumentDetails,
  outboundOf,
  updateDocumentStatus,
} from '../../db/repositories/journal-documents.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { deliveryTransition, documentTransition } from '../../domain/lifecycle/index.ts';
import { recordEvent } from '../audit/record.ts';
import { channelFailureOf, reportSignatureRefusal } from '../connections/bank-refusal.ts';
import { channelTargetOf } from '../connections/channel-target.ts';
import type { AppContext } from '../context.ts';
import { emitPaymentEvent } from '../events/outbox.ts';
import { QUEUES } from '../jobs.ts';

export type DeliveryJob = { documentId: string; platformId: string; companyId: string };
export type DeliveryAttempt = { retryCount: number; retryLimit: number };

/**
 * The bank-delivery job (issue 6): sends a converted host-to-host document through its connection's
 * channel. Success moves it to `sent` with the channel's reference, an audit event and a
 * payment.sent event; a failure is recorded and retried with backoff by the queue, and the last
 * attempt leaves the delivery visibly `failed`, never silently stuck. A crash between sending and
 * recording is safe: the retry sends the same file name again and channels recognise a repeat.
 */
export async function deliverDocument(ctx: AppContext, job: DeliveryJob, attempt: DeliveryAttempt): Promise<void> {
  const scope: CompanyScope = { platformId: job.platformId, companyId: job.companyId };
  const doc = await ctx.db.transaction(async (tx) => {
    const d = await lockDocument(tx, scope, job.documentId);
    if (d?.direction !== 'outbound' || d.status !== 'converted' || d.deliveryStatus === null) return undefined;
    const claim = deliveryTransition(d.deliveryStatus, { type: 'claimed' });
    if (!claim.ok) return undefined;
    await updateDocumentStatus(
      tx,
      scope,
      d.id,
      { from: d.status, to: d.status, delivery: { from: d.deliveryStatus, to: claim.to } },
      ctx.clock.now(),
    );
    return { ...d, deliveryStatus: claim.to };
  });
  if (!doc) return;

  try {
    const receipt = await send(ctx, scope, doc);
    ctx.metrics.deliveryAttempt(doc.bankKey, receipt.channel, 'delivered');
    await ctx.db.transaction(async (tx) => {
      const now = ctx.clock.now();
      const current = (await lockDocument(tx, scope, doc.id)) ?? doc;
      // Only the channel's confirmation makes a host-to-host document sent (documentTransition).
      const confirmed = deliveryTransition(current.deliveryStatus ?? 'not-applicable', { type: 'confirmed' });
      const sent = documentTransition(outboundOf(current), { type: 'delivery-confirmed' });
      if (!confirmed.ok || !sent.ok) {
        ctx.logger.warn(
          { documentId: doc.id, status: current.status, deliveryStatus: current.deliveryStatus },
          'delivered document changed meanwhile',
        );
        return;
      }
      const status = sent.to;
      await updateDocumentStatus(
        tx,
        scope,
        doc.id,
        { from: current.status, to: status, delivery: { from: current.deliveryStatus, to: confirmed.to } },
        now,
      );
      await mergeDocumentDetails(tx, scope, doc.id, {
        delivery: {
          channel: receipt.channel,
          reference: receipt.reference,
          deliveredAt: now.toISOString(),
          attempts: attempt.retryCount + 1,
          ...(receipt.evidence ? { evidence: receipt.evidence } : {}),
        },
      });
      await recordEvent(ctx, tx, {
        platformId: scope.platformId,
        companyId: scope.companyId,
        type: 'payment.delivered',
        message: `${doc.journalNo} delivered to ${doc.bankKey} over ${receipt.channel} (${receipt.reference})`,
        metadata: {
          documentId: doc.id,
          journalNo: doc.journalNo,
          reference: receipt.reference,
          alreadyDelivered: receipt.alreadyDelivered,
        },
        bankKey: doc.bankKey,
        environment: doc.environment,
      });
      if (status === 'sent') await emitPaymentEvent(ctx, tx, current, 'sent');
      if (receipt.channel === 'demo') {
        // The demo bank answers after its delay; the reply is a durable job (restart-safe) whose
        // time is fixed now, so a re-run writes byte-identical files that ingest dedupes.
        const replyAt = new Date(now.getTime() + ctx.config.demoBankDelayMs);
        await ctx.jobs.send(
          QUEUES.demoBankReply,
          { ...job, replyAt: replyAt.toISOString() },
          { tx, startAfter: replyAt, singletonKey: `demo-reply:${doc.id}` },
        );
      }
    });
  } catch (error) {
    // A bank that refused the file, or answered with a signature that does not verify, will not change
    // its mind on a retry: the delivery ends now rather than after every backoff (fail closed).
    const failure = channelFailureOf(error);
    const permanent = !failure.retryable && (failure.code === 'signature_invalid' || failure.code === 'bank_refused');
    const message = failure.message;
    const failed = deliveryTransition('in-progress', {
      type: 'attempt-failed',
      permanent,
      attemptsLeft: attempt.retryLimit - attempt.retryCount,
    });
    const last = failed.ok && failed.to === 'failed';
    ctx.metrics.deliveryAttempt(doc.bankKey, getProfile(doc.bankKey ?? '')?.channel, last ? 'failed' : 'retrying');
    if (failure.code === 'signature_invalid') {
      const connection = await findConnectionFor(ctx.db, scope, doc.bankKey ?? '', doc.environment);
      if (connection) {
        await reportSignatureRefusal(ctx, connection, 'uploadFile', failure, {
          documentId: doc.id,
          journalNo: doc.journalNo,
        });
      }
    }
    await ctx.db.transaction(async (tx) => {
      await updateDocumentStatus(
        tx,
        scope,
        doc.id,
        { from: doc.status, to: doc.status, delivery: { from: 'in-progress', to: last ? 'failed' : 'retrying' } },
        ctx.clock.now(),
      );
      await mergeDocumentDetails(tx, scope, doc.id, {
        delivery: { lastError: message, attempts: attempt.retryCount + 1 },
      });
      await recordEvent(ctx, tx, {
        platformId: scope.platformId,
        companyId: scope.companyId,
        type: last ? 'payment.delivery_failed' : 'payment.delivery_retrying',
        message: `${doc.journalNo} delivery attempt ${attempt.retryCount + 1} failed${last ? '; no more retries' : ''}: ${message}`,
        metadata: {
          documentId: doc.id,
          journalNo: doc.journalNo,
          attempt: attempt.retryCount + 1,
          error: message,
          retryable: failure.retryable,
          ...(failure.bank ? { bank: failure.bank } : {}),
        },
        bankKey: doc.bankKey,
        environment: doc.environment,
      });
    });
    if (!last) throw error;
  }
}

async function send(ctx: AppContext, scope: CompanyScope, doc: JournalDocumentRow) {
  const bankKey = doc.bankKey ?? '';
  const profile = getProfile(bankKey);
  if (profile?.deliveryMode !== 'host-to-host') throw new Error(`${bankKey} takes no host-to-host delivery`);
  const connection = await findConnectionFor(ctx.db, scope, bankKey, doc.environment);
  if (connection?.status !== 'active') {
    throw new Error(`no active ${doc.environment} connection to ${bankKey}`);
  }
  if (!doc.fileSealed) throw new Error(`${doc.journalNo} has no file to deliver`);
  const channel = ctx.channels.open(channelTargetOf(ctx, connection));
  try {
    return await channel.deliver({
      // Stable per document: a retried delivery presents the same name and is recognised.
      fileName: `${doc.journalNo}-${doc.id}.xml`,
      content: ctx.encryptor.decrypt(doc.fileSealed),
      documentId: doc.id,
      messageId: doc.messageId,
    });
  } finally {
    await channel.close();
  }
}
