import type { Tx } from '../../db/executor.ts';
import { listCompanyUsers } from '../../db/repositories/users.ts';
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  recordEndpointOutcome,
  updateDelivery,
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
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'payops-webhooks/1',
    'x-event-id': event.id,
    'x-event-type': event.type,
    'x-delivery-id': d.id,
    'x-delivery-attempt': String(d.attempt + 1),
    'x-delivery-sequence': String(d.sequence),
    'x-signature': signatureHeader(rawBody, liveSecrets(ctx, d, now), Math.floor(now.getTime() / 1000)),
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

async function recipientsOf(tx: Tx, d: ClaimedDelivery, cache: Map<string, string[]>): Promise<string[]> {
  if (d.emailTo) return [d.emailTo];
  const key = `${d.platformId}/${d.companyId}`;
  let admins = cache.get(key);
  if (!admins) {
    const users = await listCompanyUsers(tx, { platformId: d.platformId, companyId: d.companyId });
    admins = users.filter((u) => u.roles.includes('admin')).map((u) => u.email);
    cache.set(key, admins);
  }
  return admins;
}

/**
 * Sends the due deliveries of enabled endpoints: claims up to `limit` with FOR UPDATE SKIP LOCKED,
 * sends them concurrently while their rows stay locked, then records each outcome in the same
 * transaction (success on 2xx; else the next attempt after the backoff, or failed after 8). An
 * event's final outcome feeds the endpoint's consecutive-failure counter; the 5th failed event in a
 * row auto-disables it (audit trail only). Answers how many deliveries were attempted.
 */
export async function sendDueDeliveries(ctx: AppContext, transports: WebhookTransports, limit = 50): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const claimed = await claimDueDeliveries(tx, now, limit);
    if (claimed.length === 0) return 0;
    const cache = new Map<string, string[]>();
    const recipients = new Map<string, string[]>();
    for (const d of claimed) if (d.transport === 'email') recipients.set(d.id, await recipientsOf(tx, d, cache));
    const outcomes = await Promise.all(
      claimed.map((d) => attempt(ctx, transports, d, now, recipients.get(d.id) ?? [])),
    );

    const finals: { d: ClaimedDelivery; ok: boolean }[] = [];
    for (let i = 0; i < claimed.length; i++) {
      const d = claimed[i]!;
      const o = outcomes[i]!;
      const attemptNo = d.attempt + 1;
      const final = o.ok || attemptNo >= MAX_ATTEMPTS;
      ctx.metrics.webhookAttempt(d.transport, o.ok ? 'succeeded' : final ? 'failed' : 'retrying');
      await updateDelivery(tx, { platformId: d.platformId }, d.id, {
        attempt: attemptNo,
        status: o.ok ? 'succeeded' : final ? 'failed' : 'pending',
        responseStatus: o.responseStatus,
        error: o.error,
        durationMs: o.durationMs,
        nextAttemptAt: final ? null : new Date(now.getTime() + backoffMs(attemptNo, transports.random)),
      });
      if (final) finals.push({ d, ok: o.ok });
    }
    // Endpoint rows in id order: the dispatcher locks them in the same order, so no deadlock.
    finals.sort((a, b) => (a.d.endpointId < b.d.endpointId ? -1 : a.d.endpointId > b.d.endpointId ? 1 : 0));
    for (const { d, ok } of finals) {
      const endpoint = await recordEndpointOutcome(tx, { platformId: d.platformId }, d.endpointId, ok);
      if (!ok && endpoint && endpoint.status === 'enabled' && endpoint.consecutiveFailures >= AUTO_DISABLE_AFTER) {
        await updateEndpoint(tx, { platformId: d.platformId }, d.endpointId, {
          status: 'auto-disabled',
          updatedAt: now,
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
            lastError: outcomes[claimed.indexOf(d)]?.error ?? null,
          },
        });
      }
    }
    return claimed.length;
  });
}

/** One worker cycle: dispatch the outbox, then send what is due. Answers whether anything happened. */
export async function runWebhookCycle(ctx: AppContext, transports: WebhookTransports): Promise<boolean> {
  const dispatched = await dispatchOutbox(ctx);
  const sent = await sendDueDeliveries(ctx, transports);
  return dispatched + sent > 0;
}
