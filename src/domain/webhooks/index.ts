import { createHmac, timingSafeEqual } from 'node:crypto';
import { compareDecimalText } from '../money/decimal.ts';

/**
 * Webhook rules that need no I/O (DESIGN.md, Events and webhooks; contract, Delivery rules): the
 * signature header, the retry schedule, the endpoint's filter and the checks on an envelope.
 */

export const MAX_ATTEMPTS = 8;
export const BACKOFF_BASE_MS = 30_000;
export const BACKOFF_MAX_MS = 3_600_000;
export const BACKOFF_JITTER = 0.2;
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const AUTO_DISABLE_AFTER = 5;
export const SECRET_PREFIX = 'whsec_';

/** `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: one v1 per live secret, HMAC-SHA256 of `<t>.<raw body>`. */
export function signatureHeader(rawBody: string, secrets: readonly string[], unixSeconds: number): string {
  const base = `${unixSeconds}.${rawBody}`;
  const parts = [`t=${unixSeconds}`];
  for (const secret of secrets)
    parts.push(`v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(base).digest('hex')}`);
  return parts.join(',');
}

/**
 * The key bytes of a secret under Standard Webhooks (ADR 0057): the base64 decoding of what follows
 * `whsec_`. Every secret issued is `whsec_` + base64 text (today's 48 random bytes; the earlier hex
 * secrets are base64 text too), so this is what the `standardwebhooks` library derives from the
 * secret exactly as `POST /webhooks` returned it. `X-Signature` keys with the secret's UTF-8 bytes.
 */
export function standardWebhookKey(secret: string): Buffer {
  const text = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(text, 'base64');
}

/**
 * Standard Webhooks `webhook-signature`: space-separated `v1,<base64>` entries, one per live
 * secret, each the HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`.
 */
export function standardSignatureHeader(
  messageId: string,
  rawBody: string,
  secrets: readonly string[],
  unixSeconds: number,
): string {
  const content = `${messageId}.${unixSeconds}.${rawBody}`;
  return secrets
    .map((secret) => `v1,${createHmac('sha256', standardWebhookKey(secret)).update(content).digest('base64')}`)
    .join(' ');
}

/** What a receiver does: true when any v1 entry matches `secret` (constant-time comparison). */
export function verifySignature(rawBody: string, header: string, secret: string): boolean {
  let t: string | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') t = value;
    else if (key === 'v1') candidates.push(value);
  }
  if (t === undefined || !/^\d+$/.test(t)) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${rawBody}`).digest();
  return candidates.some((hex) => {
    if (!/^[0-9a-f]{64}$/.test(hex)) return false;
    return timingSafeEqual(Buffer.from(hex, 'hex'), expected);
  });
}

/**
 * Delay before the attempt after `attemptsMade` failed ones: 30 s doubling to at most 1 h, then
 * +-20% jitter from `random` (a number in [0, 1), injected so tests pin it).
 */
export function backoffMs(attemptsMade: number, random: () => number): number {
  const exponent = Math.max(0, attemptsMade - 1);
  const base = Math.min(BACKOFF_BASE_MS * 2 ** Math.min(exponent, 20), BACKOFF_MAX_MS);
  const factor = 1 - BACKOFF_JITTER + 2 * BACKOFF_JITTER * random();
  return Math.round(base * factor);
}

/** Clamp of the rotate-secret overlap: default 24 h, 1 to 72 h. */
export function overlapHours(requested: number | undefined): number {
  if (requested === undefined || !Number.isFinite(requested)) return 24;
  return Math.min(72, Math.max(1, requested));
}

/**
 * The JSON number of `filterPredicate.minAmount` as a plain decimal string, exactly as written
 * (no exponent form, at most 18 integer and 6 fraction digits, not negative); undefined otherwise.
 */
export function minAmountText(value: number): string | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  const text = String(value);
  return /^\d{1,18}(\.\d{1,6})?$/.test(text) ? text : undefined;
}

export type WebhookFilter = { bankKey?: string; minAmount?: string };
export type EventEnvelope = {
  id: string;
  type: string;
  createdAt: string;
  apiVersion: string;
  platformId: string;
  companyId: string | null;
  data: Record<string, unknown>;
};

/** Does an endpoint subscribed to `eventTypes` (null: all) with `filter` take this event? */
export function endpointTakes(
  endpoint: { eventTypes: readonly string[] | null; filter: WebhookFilter | null },
  event: { type: string; data: Record<string, unknown> },
): boolean {
  if (event.type === 'webhook.auto-disabled') return false;
  if (endpoint.eventTypes !== null && !endpoint.eventTypes.includes(event.type)) return false;
  const filter = endpoint.filter;
  if (!filter) return true;
  if (filter.bankKey !== undefined && event.data.bankKey !== filter.bankKey) return false;
  if (filter.minAmount !== undefined) {
    // A document's events carry its totals; a line's (payment.returned) its own amount.
    const totals = Array.isArray(event.data.totals)
      ? (event.data.totals as unknown[])
      : typeof event.data.amount === 'string'
        ? [{ amount: event.data.amount }]
        : [];
    const reaches = totals.some((total) => {
      const amount = (total as { amount?: unknown } | null)?.amount;
      if (typeof amount !== 'string') return false;
      const cmp = compareDecimalText(amount, filter.minAmount as string);
      return cmp !== undefined && cmp >= 0;
    });
    if (!reaches) return false;
  }
  return true;
}

/** The envelope checks the sender relies on: an object with the DESIGN.md fields. */
export function isEnvelope(value: unknown): value is EventEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.id === 'string' &&
    v.id.startsWith('evt_') &&
    typeof v.type === 'string' &&
    typeof v.createdAt === 'string' &&
    typeof v.apiVersion === 'string' &&
    typeof v.platformId === 'string' &&
    (typeof v.companyId === 'string' || v.companyId === null) &&
    typeof v.data === 'object' &&
    v.data !== null
  );
}

/** A short human text of an event for Slack and email. */
export function eventSummary(event: EventEnvelope): string {
  const d = event.data;
  const parts = [`${event.type}`];
  if (typeof d.journalNo === 'string') parts.push(String(d.journalNo));
  if (typeof d.bankKey === 'string') parts.push(`bank ${d.bankKey}`);
  if (Array.isArray(d.totals)) {
    const totals = (d.totals as Array<{ amount?: unknown; currency?: unknown }>)
      .map((t) => `${String(t.amount)} ${String(t.currency)}`)
      .join(', ');
    if (totals) parts.push(totals);
  } else if (typeof d.amount === 'string') {
    parts.push(`${d.amount} ${String(d.currency ?? '')}`.trim());
  }
  if (typeof d.endToEndId === 'string' && event.type === 'payment.returned') parts.push(`line ${d.endToEndId}`);
  if (typeof d.reason === 'string') parts.push(`reason ${d.reason}`);
  return parts.join(' | ');
}

/** Event types an endpoint can subscribe to (webhook.auto-disabled is audit-only, never delivered). */
export const WEBHOOK_EVENT_TYPES = [
  'payment.sent',
  'payment.executed',
  'payment.rejected',
  'payment.returned',
  'approval.requested',
  'approval.approved',
  'approval.rejected',
  'approval.expired',
  'webhook.test',
  // Receivables (DESIGN.md, Events; docs/adr/0069).
  'incoming_payment.received',
  'incoming_payment.matched',
  // A credit the bank reversed (docs/adr/0076).
  'incoming_payment.returned',
  'expected_payment.reconciled',
  'expected_payment.overdue',
  'reconciliation.manual_match',
  'reconciliation.unmatched',
] as const;
export const TRANSPORTS = ['https', 'slack', 'email'] as const;
export const URL_MAX_LENGTH = 2048;
export { maskedDestination } from './mask-url.ts';
