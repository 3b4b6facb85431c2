import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../../app/errors.ts';
import { listEndpointDeliveries, redeliver, sendTestEvent } from '../../../app/webhooks/deliveries.ts';
import {
  disableEndpoint,
  enableEndpoint,
  getEndpoint,
  listCompanyEndpoints,
  reEnableEndpoint,
  registerEndpoint,
  removeEndpoint,
  rotateSecret,
} from '../../../app/webhooks/endpoints.ts';
import { TRANSPORTS, WEBHOOK_EVENT_TYPES } from '../../../domain/webhooks/index.ts';
import { parseForm } from '../../plugins/form-body.ts';
import type { HttpServices } from '../../services.ts';
import { badge, param, when } from '../format.ts';
import { currentCompanyId, dashboardView } from '../guard.ts';
import { type Html, href, html } from '../html.ts';
import { csrfField, type DashboardView, type Notice, sendDashboardPage } from '../layout.ts';

const endpointPath = (id: string) => `/dashboard/webhooks/${encodeURIComponent(id)}`;

/** What a finished action says after its redirect (fixed texts: nothing from the request is echoed). */
const DONE: Record<string, string> = {
  test: 'A webhook.test event was queued; its delivery shows below within seconds.',
  enable: 'The endpoint is enabled.',
  disable: 'The endpoint is disabled: no events are delivered to it.',
  're-enable': 'The endpoint is enabled again and its failure count cleared.',
  redeliver: 'The delivery was queued again.',
  delete: 'The endpoint was removed.',
};

function secretNotice(secret: string, what: string): Html {
  return html`<div class="notice ok" role="status"><p>${what} Its signing secret is shown this once; store it now:</p>
<p class="secret" id="secret">${secret}</p></div>`;
}

function registerForm(view: DashboardView): Html {
  const events = WEBHOOK_EVENT_TYPES.map(
    (t) => html`<label class="check"><input type="checkbox" name="${`event:${t}`}" value="on"> ${t}</label>`,
  );
  return html`<h2>Register an endpoint</h2>
<form method="post" action="/dashboard/webhooks" class="stack">${csrfField(view)}
<label for="wh-url">URL (https)</label><input id="wh-url" name="url" type="url" required placeholder="https://example.com/hooks/payops">
<label for="wh-transport">Transport</label><select id="wh-transport" name="transport">${TRANSPORTS.map((t) => html`<option value="${t}">${t}</option>`)}</select>
<fieldset><legend>Events (none ticked: every event)</legend>${events}</fieldset>
<div class="actions"><button type="submit" class="primary">Register</button></div></form>`;
}

async function listPage(ctx: HttpServices['ctx'], view: DashboardView, notices: Html | Notice[] = []) {
  const endpoints = await listCompanyEndpoints(ctx, view.session, { companyId: currentCompanyId(view), limit: 100 });
  const rows = endpoints.items.map(
    (e) =>
      html`<tr><td><a href="${endpointPath(e.id)}">${e.url}</a></td><td>${e.transport}</td><td>${e.eventTypes ? e.eventTypes.join(', ') : 'all'}</td><td>${badge(e.status)}</td><td class="num">${e.consecutiveFailures}</td><td>${when(e.createdAt)}</td></tr>`,
  );
  const table =
    rows.length === 0
      ? html`<p>No endpoints yet.</p>`
      : html`<table><thead><tr><th scope="col">URL</th><th scope="col">Transport</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col" class="num">Failures in a row</th><th scope="col">Created</th></tr></thead><tbody>${rows}</tbody></table>`;
  const lead = Array.isArray(notices) ? html`` : notices;
  return {
    title: 'Webhooks',
    active: 'webhooks',
    notices: Array.isArray(notices) ? notices : [],
    body: html`${lead}${table}${registerForm(view)}`,
  };
}

function action(view: DashboardView, id: string, name: string, label: string, cls = ''): Html {
  return html`<form method="post" action="${`${endpointPath(id)}/${name}`}" class="inline">${csrfField(view)}<button type="submit" class="${cls}">${label}</button></form>`;
}

async function endpointPage(
  ctx: HttpServices['ctx'],
  view: DashboardView,
  id: string,
  cursor: string | undefined,
  lead: Html = html``,
) {
  const companyId = currentCompanyId(view);
  const endpoint = await getEndpoint(ctx, view.session, id, companyId);
  const deliveries = await listEndpointDeliveries(ctx, view.session, id, { companyId, cursor, limit: 50 });
  const rows = deliveries.items.map(
    (
      d,
    ) => html`<tr><td>${when(d.createdAt)}</td><td><code>${d.eventType}</code></td><td class="num">${d.sequence}</td><td class="num">${d.attempt}</td>
<td>${badge(d.status)}</td><td class="num">${d.responseStatus ?? ''}</td><td>${d.error ?? ''}</td><td class="num">${d.durationMs ?? ''}</td>
<td><form method="post" action="${`${endpointPath(id)}/deliveries/${encodeURIComponent(d.id)}/redeliver`}" class="inline">${csrfField(view)}<button type="submit">Redeliver</button></form></td></tr>`,
  );
  const statusActions =
    endpoint.status === 'enabled'
      ? action(view, id, 'disable', 'Disable')
      : endpoint.status === 'auto-disabled'
        ? action(view, id, 're-enable', 'Re-enable')
        : action(view, id, 'enable', 'Enable');
  const next = deliveries.nextCursor
    ? html`<a rel="next" href="${href(endpointPath(id), { cursor: deliveries.nextCursor })}">Older deliveries</a>`
    : '';
  return {
    title: `Webhook ${endpoint.url}`,
    active: 'webhooks',
    body: html`${lead}<dl class="facts"><dt>Status</dt><dd>${badge(endpoint.status)}</dd><dt>Transport</dt><dd>${endpoint.transport}</dd>
<dt>Events</dt><dd>${endpoint.eventTypes ? endpoint.eventTypes.join(', ') : 'all'}</dd><dt>Failures in a row</dt><dd>${endpoint.consecutiveFailures}</dd></dl>
<div class="actions">${action(view, id, 'test', 'Send a test event', 'primary')} ${statusActions} ${action(view, id, 'rotate-secret', 'Rotate the secret')} ${action(view, id, 'delete', 'Remove', 'danger')}</div>
<h2>Delivery log</h2>
${rows.length === 0 ? html`<p>No deliveries yet.</p>` : html`<table><thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col" class="num">Sequence</th><th scope="col" class="num">Attempt</th><th scope="col">Status</th><th scope="col" class="num">Response</th><th scope="col">Error</th><th scope="col" class="num">ms</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${rows}</tbody></table>`}
<p class="pager">${next}</p>`,
  };
}

/** The form's ticked event types (one field per type; none ticked: every event). */
function eventTypesOf(params: Record<string, string>): string[] | undefined {
  const ticked = WEBHOOK_EVENT_TYPES.filter((t) => params[`event:${t}`] === 'on');
  return ticked.length > 0 ? ticked : undefined;
}

/**
 * Webhooks for a company admin, through the webhook routes' use cases: endpoints, registering one
 * (its secret shown once, never in a URL), the delivery log, test, redeliver, rotate, enable/disable.
 */
export const webhookPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard/webhooks', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    return sendDashboardPage(reply, view, await listPage(ctx, view));
  });

  app.post('/dashboard/webhooks', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const form = parseForm(request.body);
    const params = form.ok ? form.params : {};
    try {
      const created = await registerEndpoint(ctx, view.session, {
        companyId: currentCompanyId(view),
        url: params['url'] ?? '',
        transport: params['transport'] || undefined,
        eventTypes: eventTypesOf(params),
      });
      const lead = secretNotice(created.secret, `The endpoint ${created.endpoint.url} is registered.`);
      return sendDashboardPage(reply, view, await endpointPage(ctx, view, created.endpoint.id, undefined, lead));
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const page = await listPage(ctx, view, [{ kind: 'error', text: error.message }]);
      return sendDashboardPage(reply, view, { ...page, status: error.status });
    }
  });

  app.get('/dashboard/webhooks/:id', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const id = (request.params as { id: string }).id;
    const done = DONE[param(request.query, 'done') ?? ''];
    const page = await endpointPage(ctx, view, id, param(request.query, 'cursor'));
    return sendDashboardPage(reply, view, { ...page, notices: done ? [{ kind: 'ok', text: done }] : [] });
  });

  app.post('/dashboard/webhooks/:id/:action', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const { id, action: name } = request.params as { id: string; action: string };
    const companyId = currentCompanyId(view);
    if (name === 'rotate-secret') {
      const rotated = await rotateSecret(ctx, view.session, id, undefined, companyId);
      const lead = secretNotice(
        rotated.secret,
        `The secret was rotated; the old one keeps signing until ${rotated.overlapUntil}.`,
      );
      return sendDashboardPage(reply, view, await endpointPage(ctx, view, id, undefined, lead));
    }
    const actions: Record<string, () => Promise<unknown>> = {
      test: () => sendTestEvent(ctx, view.session, id, companyId),
      enable: () => enableEndpoint(ctx, view.session, id, companyId),
      disable: () => disableEndpoint(ctx, view.session, id, companyId),
      're-enable': () => reEnableEndpoint(ctx, view.session, id, companyId),
      delete: () => removeEndpoint(ctx, view.session, id, companyId),
    };
    const run = actions[name];
    if (!run) throw new AppError('not_found', 'no such webhook action');
    await run();
    if (name === 'delete') return reply.redirect('/dashboard/webhooks', 303);
    return reply.redirect(href(endpointPath(id), { done: name }), 303);
  });

  app.post(
    '/dashboard/webhooks/:id/deliveries/:deliveryId/redeliver',
    { schema: { hide: true } },
    async (request, reply) => {
      const view = await dashboardView(ctx, request);
      const { id, deliveryId } = request.params as { id: string; deliveryId: string };
      await redeliver(ctx, view.session, id, deliveryId, currentCompanyId(view));
      return reply.redirect(href(endpointPath(id), { done: 'redeliver' }), 303);
    },
  );
};
