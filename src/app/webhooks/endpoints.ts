import { randomBytes } from 'node:crypto';
import type { Tx } from '../../db/executor.ts';
import {
  deleteEndpoint,
  insertEndpoint,
  listEndpoints,
  updateEndpoint,
  type WebhookEndpointRow,
} from '../../db/repositories/webhooks.ts';
import {
  maskedDestination,
  minAmountText,
  overlapHours,
  SECRET_PREFIX,
  TRANSPORTS,
  URL_MAX_LENGTH,
  WEBHOOK_EVENT_TYPES,
  type WebhookFilter,
} from '../../domain/webhooks/index.ts';
import { checkUrlTarget, SsrfError } from '../../platform/ssrf-guard.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { Principal } from '../identity/principal.ts';
import { decodeCursor, page } from '../pagination.ts';
import { hasControlCharacters } from '../plain-text.ts';
import { actorOf, endpointFor, validationFailed, webhookScope } from './access.ts';
import { endpointView } from './views.ts';

export type RegisterInput = {
  companyId?: string | undefined;
  url?: string | undefined;
  eventTypes?: string[] | undefined;
  transport?: string | undefined;
  emailTo?: string | undefined;
  filterPredicate?: { bankKey?: string | undefined; minAmount?: number | undefined } | undefined;
};

const BODY_FIELDS = ['companyId', 'url', 'eventTypes', 'transport', 'emailTo', 'filterPredicate'];
const EMAIL = /^[^\s@<>,;]{1,64}@[^\s@<>,;]{1,255}$/;

/**
 * `whsec_` + base64 of 48 random bytes (64 characters, no padding): Standard Webhooks receivers
 * decode it to the 48 key bytes, `X-Signature` receivers key with the text itself (ADR 0057).
 */
export function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(48).toString('base64')}`;
}

/** The url: its length, an absolute URL, and for https and Slack an https one that passes the SSRF guard. */
async function checkUrl(ctx: AppContext, url: string, transport: string): Promise<void> {
  if (url.length > URL_MAX_LENGTH) {
    throw validationFailed('body.url', 'too_long', `url is longer than ${URL_MAX_LENGTH} characters`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw validationFailed('body.url', 'invalid_url', 'url is not an absolute URL');
  }
  if (transport !== 'https' && transport !== 'slack') return;
  if (parsed.protocol !== 'https:') throw validationFailed('body.url', 'https_required', 'url must be an https URL');
  try {
    await checkUrlTarget(parsed, { allowPrivate: ctx.config.webhookAllowPrivateTargets });
  } catch (error) {
    if (error instanceof SsrfError) throw validationFailed('body.url', 'url_not_allowed', error.message);
    throw error;
  }
}

/** The filter predicate (bank key, minimum amount), null when it filters nothing. */
function checkFilter(fp: RegisterInput['filterPredicate']): WebhookFilter | null {
  if (fp === undefined || (fp.bankKey === undefined && fp.minAmount === undefined)) return null;
  const filter: WebhookFilter = {};
  if (fp.bankKey !== undefined) filter.bankKey = fp.bankKey;
  if (fp.minAmount !== undefined) {
    const text = minAmountText(fp.minAmount);
    if (text === undefined) {
      throw validationFailed(
        'body.filterPredicate.minAmount',
        'invalid_amount',
        'minAmount must be a plain non-negative decimal (at most 6 fraction digits)',
      );
    }
    filter.minAmount = text;
  }
  return filter;
}

/** The contract's body rules, in its order: url presence first, then transport and the rest. */
async function checkRegistration(ctx: AppContext, input: RegisterInput) {
  if (input.url === undefined || input.url === '') throw new AppError('url_required', 'url is required');
  const unknown = Object.keys(input).filter((k) => !BODY_FIELDS.includes(k));
  const unknownFilter = Object.keys(input.filterPredicate ?? {}).filter((k) => k !== 'bankKey' && k !== 'minAmount');
  if (unknown.length > 0 || unknownFilter.length > 0) {
    const names = [...unknown, ...unknownFilter.map((k) => `filterPredicate.${k}`)];
    throw new AppError('validation_failed', `unknown fields: ${names.join(', ')}`, {
      issues: names.map((name) => ({
        path: `body.${name}`,
        field: name,
        code: 'unknown_field',
        message: 'unknown field',
      })),
    });
  }
  if (input.companyId === undefined || input.companyId === '') {
    throw validationFailed('body.companyId', 'required', 'companyId is required');
  }
  const transport = input.transport ?? 'https';
  if (!(TRANSPORTS as readonly string[]).includes(transport)) {
    throw validationFailed('body.transport', 'invalid_transport', `transport must be one of ${TRANSPORTS.join(', ')}`);
  }
  await checkUrl(ctx, input.url, transport);
  if (input.eventTypes !== undefined) {
    if (input.eventTypes.length === 0) {
      throw validationFailed('body.eventTypes', 'empty', 'eventTypes must name at least one event; omit it for all');
    }
    const unknown = input.eventTypes.filter((t) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t));
    if (unknown.length > 0) {
      throw validationFailed('body.eventTypes', 'unknown_event_type', `unknown event types: ${unknown.join(', ')}`);
    }
  }
  if (input.emailTo !== undefined) {
    if (transport !== 'email')
      throw validationFailed('body.emailTo', 'email_transport_only', 'emailTo needs transport email');
    if (!EMAIL.test(input.emailTo) || hasControlCharacters(input.emailTo))
      throw validationFailed('body.emailTo', 'invalid_email', 'emailTo is not an email address');
  }
  const filter = checkFilter(input.filterPredicate);
  return {
    companyId: input.companyId,
    url: input.url,
    transport,
    eventTypes: input.eventTypes ? [...new Set(input.eventTypes)] : null,
    emailTo: input.emailTo ?? null,
    filter,
  };
}

export async function registerEndpoint(ctx: AppContext, principal: Principal, input: RegisterInput) {
  const checked = await checkRegistration(ctx, input);
  const scope = await webhookScope(ctx, principal, checked.companyId);
  const secret = newSecret();
  const now = ctx.clock.now();
  const row = await ctx.db.transaction(async (tx) => {
    const created = await insertEndpoint(tx, {
      id: ctx.ids.next('wh'),
      platformId: scope.platformId,
      companyId: scope.companyId,
      url: maskedDestination(checked.url, checked.transport),
      urlSealed: ctx.encryptor.encrypt(checked.url),
      eventTypes: checked.eventTypes,
      transport: checked.transport,
      emailTo: checked.emailTo,
      filterPredicate: checked.filter,
      status: 'enabled',
      consecutiveFailures: 0,
      lastSequence: 0,
      secretSealed: ctx.encryptor.encrypt(secret),
      createdAt: now,
      updatedAt: now,
    });
    await recordEvent(ctx, tx, {
      platformId: scope.platformId,
      companyId: scope.companyId,
      type: 'webhook.created',
      message: `webhook endpoint ${created.id} registered (${created.transport})`,
      actorUserId: actorOf(principal),
      metadata: { endpointId: created.id, url: created.url, transport: created.transport },
    });
    return created;
  });
  return { endpoint: endpointView(row), secret };
}

export async function listCompanyEndpoints(
  ctx: AppContext,
  principal: Principal,
  query: { companyId: string; cursor?: string | undefined; limit?: number | undefined },
) {
  const scope = await webhookScope(ctx, principal, query.companyId);
  const limit = query.limit ?? 100;
  const rows = await listEndpoints(ctx.db, scope, { after: decodeCursor(query.cursor), limit: limit + 1 });
  const result = page(rows, limit);
  return { items: result.items.map(endpointView), nextCursor: result.nextCursor };
}

export async function getEndpoint(ctx: AppContext, principal: Principal, id: string, companyId?: string) {
  return endpointView(await endpointFor(ctx, principal, id, companyId));
}

export async function removeEndpoint(ctx: AppContext, principal: Principal, id: string, companyId?: string) {
  const row = await endpointFor(ctx, principal, id, companyId);
  await ctx.db.transaction(async (tx) => {
    await deleteEndpoint(tx, { platformId: row.platformId }, row.id);
    await recordEvent(ctx, tx, {
      platformId: row.platformId,
      companyId: row.companyId,
      type: 'webhook.deleted',
      message: `webhook endpoint ${row.id} removed`,
      actorUserId: actorOf(principal),
      metadata: { endpointId: row.id },
    });
  });
}

/** A state change of an endpoint with its audit entry, in one transaction on the locked row. */
async function changeEndpoint(
  ctx: AppContext,
  principal: Principal,
  id: string,
  companyId: string | undefined,
  change: (row: WebhookEndpointRow, tx: Tx) => Promise<WebhookEndpointRow>,
): Promise<WebhookEndpointRow> {
  await endpointFor(ctx, principal, id, companyId);
  return ctx.db.transaction(async (tx) => {
    const locked = await endpointFor(ctx, principal, id, companyId, { forUpdate: true, tx });
    return change(locked, tx);
  });
}

async function setStatus(
  ctx: AppContext,
  principal: Principal,
  id: string,
  companyId: string | undefined,
  target: 'enabled' | 'disabled',
  auditType: string,
) {
  const row = await changeEndpoint(ctx, principal, id, companyId, async (locked, tx) => {
    const clearsFailures = target === 'enabled';
    if (locked.status === target && !(clearsFailures && locked.consecutiveFailures > 0)) return locked;
    const updated = await updateEndpoint(tx, { platformId: locked.platformId }, locked.id, {
      status: target,
      ...(clearsFailures ? { consecutiveFailures: 0 } : {}),
      updatedAt: ctx.clock.now(),
    });
    await recordEvent(ctx, tx, {
      platformId: locked.platformId,
      companyId: locked.companyId,
      type: auditType,
      message: `webhook endpoint ${locked.id} ${target} (was ${locked.status})`,
      actorUserId: actorOf(principal),
      metadata: { endpointId: locked.id, previousStatus: locked.status },
    });
    return updated!;
  });
  return endpointView(row);
}

export const enableEndpoint = (ctx: AppContext, p: Principal, id: string, companyId?: string) =>
  setStatus(ctx, p, id, companyId, 'enabled', 'webhook.enabled');
export const disableEndpoint = (ctx: AppContext, p: Principal, id: string, companyId?: string) =>
  setStatus(ctx, p, id, companyId, 'disabled', 'webhook.disabled');
/** Clears an auto-disabled state and the consecutive-failure counter. */
export const reEnableEndpoint = (ctx: AppContext, p: Principal, id: string, companyId?: string) =>
  setStatus(ctx, p, id, companyId, 'enabled', 'webhook.re-enabled');

/**
 * A new signing secret; the current one keeps signing for the overlap (default 24 h, 1 to 72), so
 * deliveries carry a v1 for each. A rotation inside an overlap ends the older secret at once.
 */
export async function rotateSecret(
  ctx: AppContext,
  principal: Principal,
  id: string,
  requestedHours: number | undefined,
  companyId?: string,
) {
  const hours = overlapHours(requestedHours);
  const secret = newSecret();
  const now = ctx.clock.now();
  const overlapUntil = new Date(now.getTime() + Math.round(hours * 3_600_000));
  await changeEndpoint(ctx, principal, id, companyId, async (locked, tx) => {
    const updated = await updateEndpoint(tx, { platformId: locked.platformId }, locked.id, {
      secretSealed: ctx.encryptor.encrypt(secret),
      previousSecretSealed: locked.secretSealed,
      previousSecretUntil: overlapUntil,
      updatedAt: now,
    });
    await recordEvent(ctx, tx, {
      platformId: locked.platformId,
      companyId: locked.companyId,
      type: 'webhook.secret-rotated',
      message: `webhook endpoint ${locked.id} signing secret rotated; the previous one signs until ${overlapUntil.toISOString()}`,
      actorUserId: actorOf(principal),
      metadata: { endpointId: locked.id, overlapHours: hours, overlapUntil: overlapUntil.toISOString() },
    });
    return updated!;
  });
  return { secret, overlapUntil: overlapUntil.toISOString() };
}
