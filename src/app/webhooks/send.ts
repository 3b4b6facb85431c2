import { transactionWithRetry } from '../../db/conflict-retry.ts';
import { listCompanyUsers } from '../../db/repositories/users.ts';
import {
  type ClaimedDelivery,
  leaseDueDeliveries,
  recordEndpointOutcome,
  recordLeasedAttempt,
  updateEndpoint,
} from '../../db/repositories/webhooks.ts';
import {
  ATTEMPT_TIMEOUT_MS,
  AUTO_DISABLE_AFTER,
  backoffMs,
  type EventEnvelope,
  eventSummary,
  isEnvelope,
  MAX_ATTEMPTS,
  signatureHeader,
  standardSignatureHeader,
} from '../../domain/webhooks/index.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { dispatchOutbox } from './dispatch.ts';
import type { WebhookTransports } from './transports.ts';

type Outcome = { ok: boolean; responseStatus: number | null; error: string | null; durationMs: number };

function errorText(error: unknown): string {
  const e = error as { message?: string; code?: string; cause?: { message?: string; code?: string } };
  const message = e?.cause?.message ?? e?.message ?? String(error);
  const code = e?.cause?.code ?? e?.code;
  return (code && !message.includes(code) ? `${code}: ${message}` : message).slice(0, 500);
}

/** Where the delivery goes: the sealed destination (the plain column holds only its masked form). */
function destination(ctx: AppContext, d: ClaimedDelivery): string {
  return d.urlSealed === null ? d.url : ctx.encryptor.decrypt(d.urlSealed);
}

/** The live signing secrets: the current one, and the previous one during a rotation overlap. */
function liveSecrets(ctx: AppContext, d: ClaimedDelivery, now: Date): string[] {
  const secrets = [ctx.encryptor.decrypt(d.secretSealed)];
  if (d.previousSecretSealed && d.previousSecretUntil && d.previousSecretUntil.getTime() > now.getTime()) {
    secrets.push(ctx.encryptor.decrypt(d.previousSecretSealed));
  }
  return secrets;
}

async function httpsAttempt(
  ctx: AppContext,
  transports: WebhookTransports,
  d: ClaimedDelivery,
  event: EventEnvelope,
  now: Date,
): Promise<Omit<Outcome, 'durationMs'>> {
  const rawBody = JSON.stringify(event);
  const secrets = liveSecrets(ctx, d, now);
  const unixSeconds = Math.floor(now.getTime() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'payops-webhooks/1',
    'x-event-id': event.id,
    'x-event-type': event.type,
    'x-delivery-id': d.id,
    'x-delivery-attempt': String(d.attempt + 1),
    'x-delivery-sequence': String(d.sequence),
    'x-signature': signatureHeader(rawBody, secrets, unixSeconds),
    // Standard Webhooks beside it: the event id is the message id, so a retry or redelivery keeps it.
    'webhook-id': event.id,
    'webhook-timestamp': String(unixSeconds),
    'webhook-signature': standardSignatureHeader(event.id, rawBody, secrets, unixSeconds),
  };
  const res = await transports.http.send(destination(ctx, d), {
    headers,
    body: rawBody,
    timeoutMs: ATTEMPT_TIMEOUT_MS,
  });
  const ok = res.status >= 200 && res.status < 300;
  return { ok, responseStatus: res.status, error: ok ? null : `HTTP ${res.status}` };
}

async function slackAttempt(ctx: AppContext, transports: WebhookTransports, d: ClaimedDelivery, event: EventEnvelope) {
  const text = `*${event.type}* | ${eventSummary(event)}\nevent ${event.id} | company ${event.companyId ?? '-'} | sequence ${d.sequence}`;
  const body = JSON.stringify({
    text,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  });
  const res = await transports.http.send(destination(ctx, d), {
    headers: { 'content-type': 'application/json', 'user-agent': 'payops-webhooks/1' },
    body,
    timeoutMs: ATTEMPT_TIMEOUT_MS,
  });
  const ok = res.status >= 200 && res.status < 300;
  return { ok, responseStatus: res.status, error: ok ? null : `HTTP ${res.status}` };
}

async function emailAttempt(transports: WebhookTransports, d: ClaimedDelivery, event: EventEnvelope, to: string[]) {
  if (to.length === 0)
    return { ok: false, responseStatus: null, error: 'no recipient: no emailTo and no company admins' };
  await transports.mail.send({
    to: to.join(', '),
    subject: `[payops] ${eventSummary(event)}`,
    text: `${eventSummary(event)}\n\nEvent ${event.id} (${event.type}), delivery ${d.id}, sequence ${d.sequence}.\n\n${JSON.stringify(event, null, 2)}\n`,
  });
  return { ok: true, responseStatus: null, error: null };
}

async function attempt(
  ctx: AppContext,
  transports: WebhookTransports,
  d: ClaimedDelivery,
  now: Date,
  recipients: string[],
): Promise<Outcome> {
  const started = performance.now();
  const event = d.payload;
  let result: Omit<Outcome, 'durationMs'>;
  try {
    if (!isEnvelope(event)) result = { ok: false, responseStatus: null, error: 'the event is no longer available' };
    else if (d.transport === 'slack') result = await slackAttempt(ctx, transports, d, event);
    else if (d.transport === 'email') result = await emailAttempt(transports, d, event, recipients);
    else result = await httpsAttempt(ctx, transports, d, event, now);
  } catch (error) {
    result = { ok: false, responseStatus: null, error: errorText(error) };
  }
  return { ...result, durationMs: Math.round(performance.now() - started) };
}

async function recipientsOf(ctx: AppContext, d: ClaimedDelivery, cache: Map<string, string[]>): Promise<string[]> {
  if (d.emailTo) return [d.emailTo];
  const key = `${d.platformId}/${d.companyId}`;
  let admins = cache.get(key);
  if (!admins) {
    const users = await listCompanyUsers(ctx.db, { platformId: d.platformId, companyId: d.companyId });
    admins = users.filter((u) => u.roles.includes('admin')).map((u) => u.email);
    cache.set(key, admins);
  }
  return admins;
}

/** How long a sender holds a leased delivery: the attempt's own timeout and a margin for recording. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 20_000;

/**
 * Sends the due deliveries of enabled endpoints in three steps, no transaction open while a receiver
 * is called: (1) a short transaction leases up to `limit` of them (FOR UPDATE SKIP LOCKED, lease in
 * `next_attempt_at`); (2) they are sent concurrently; (3) another transaction records each outcome
 * against its lease (success on 2xx; else the next attempt after the backoff, or failed after 8). An
 * event's final outcome feeds the endpoint's consecutive-failure counter; the 5th failed event in a
 * row auto-disables it (audit trail only). A failed attempt is logged at warn with the endpoint and
 * the reason. Answers how many deliveries were attempted.
 */
export async function sendDueDeliveries(ctx: AppContext, transports: WebhookTransports, limit = 50): Promise<number> {
  const now = ctx.clock.now();
  const leaseUntil = new Date(now.getTime() + LEASE_MS);
  const claimed = await ctx.db.transaction((tx) => leaseDueDeliveries(tx, now, leaseUntil, limit));
  if (claimed.length === 0) return 0;
  const cache = new Map<string, string[]>();
  const recipients = new Map<string, string[]>();
  for (const d of claimed) if (d.transport === 'email') recipients.set(d.id, await recipientsOf(ctx, d, cache));
  const outcomes = await Promise.all(claimed.map((d) => attempt(ctx, transports, d, now, recipients.get(d.id) ?? [])));

  await transactionWithRetry(ctx.db, 'webhook outcome record', async (tx) => {
    const recordedAt = ctx.clock.now();
    const finals: { d: ClaimedDelivery; ok: boolean; error: string | null }[] = [];
    for (let i = 0; i < claimed.length; i++) {
      const d = claimed[i]!;
      const o = outcomes[i]!;
      const attemptNo = d.attempt + 1;
      const final = o.ok || attemptNo >= MAX_ATTEMPTS;
      const recorded = await recordLeasedAttempt(
        tx,
        { platformId: d.platformId },
        { id: d.id, attempt: d.attempt, leaseUntil },
        {
          attempt: attemptNo,
          status: o.ok ? 'succeeded' : final ? 'failed' : 'pending',
          responseStatus: o.responseStatus,
          error: o.error,
          durationMs: o.durationMs,
          nextAttemptAt: final ? null : new Date(recordedAt.getTime() + backoffMs(attemptNo, transports.random)),
        },
      );
      if (!recorded) continue;
      ctx.metrics.webhookAttempt(d.transport, o.ok ? 'succeeded' : final ? 'failed' : 'retrying');
      if (!o.ok) {
        ctx.logger.warn(
          {
            endpointId: d.endpointId,
            deliveryId: d.id,
            eventId: d.eventId,
            attempt: attemptNo,
            responseStatus: o.responseStatus,
            reason: o.error,
          },
          final ? 'webhook delivery failed; no more attempts' : 'webhook attempt failed; retried later',
        );
      }
      if (final) finals.push({ d, ok: o.ok, error: o.error });
    }
    // Endpoint rows in id order: the dispatcher locks them in the same order, so no deadlock.
    finals.sort((a, b) => (a.d.endpointId < b.d.endpointId ? -1 : a.d.endpointId > b.d.endpointId ? 1 : 0));
    for (const [i, { d, ok, error }] of finals.entries()) {
      // A success right after a success of the same endpoint finds its counter at 0 already.
      const before = finals[i - 1];
      if (ok && before?.ok && before.d.endpointId === d.endpointId) continue;
      const endpoint = await recordEndpointOutcome(tx, { platformId: d.platformId }, d.endpointId, ok);
      if (!ok && endpoint && endpoint.status === 'enabled' && endpoint.consecutiveFailures >= AUTO_DISABLE_AFTER) {
        await updateEndpoint(tx, { platformId: d.platformId }, d.endpointId, {
          status: 'auto-disabled',
          updatedAt: recordedAt,
        });
        ctx.metrics.webhookAutoDisabled(d.transport);
        await recordEvent(ctx, tx, {
          platformId: d.platformId,
          companyId: d.companyId,
          type: 'webhook.auto-disabled',
          message: `webhook endpoint ${d.endpointId} auto-disabled after ${endpoint.consecutiveFailures} consecutive failed events`,
          metadata: {
            endpointId: d.endpointId,
            consecutiveFailures: endpoint.consecutiveFailures,
            lastError: error,
          },
        });
      }
    }
  });
  return claimed.length;
}

/** One worker cycle: dispatch the outbox, then send what is due. Answers whether anything happened. */
export async function runWebhookCycle(ctx: AppContext, transports: WebhookTransports): Promise<boolean> {
  const dispatched = await dispatchOutbox(ctx);
  const sent = await sendDueDeliveries(ctx, transports);
  return dispatched + sent > 0;
}
