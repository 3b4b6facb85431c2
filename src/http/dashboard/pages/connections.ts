import type { FastifyPluginAsync } from 'fastify';
import { activateConnection } from '../../../app/connections/activate.ts';
import { createConnection, listCompanyConnections } from '../../../app/connections/connections.ts';
import { confirmEbicsBankKeys, ebicsLetter, fetchEbicsBankKeys, initEbics } from '../../../app/connections/ebics.ts';
import { pinSigningCertificate } from '../../../app/connections/signing-cert.ts';
import { sendTestPayment } from '../../../app/connections/test-payment.ts';
import { AppError } from '../../../app/errors.ts';
import { listProfiles } from '../../../domain/conversion/index.ts';
import { parseForm } from '../../plugins/form-body.ts';
import type { HttpServices } from '../../services.ts';
import { badge, when } from '../format.ts';
import { currentCompanyId, dashboardView } from '../guard.ts';
import { type Html, html } from '../html.ts';
import { csrfField, type DashboardView, type Notice, sendDashboardPage } from '../layout.ts';
import { ebicsPanel } from './ebics-onboarding.ts';

type Connection = Awaited<ReturnType<typeof listCompanyConnections>>['items'][number];
type ActivationField = { name: string; pattern: string; description: string };

const connectionAction = (id: string, action: string) => `/dashboard/connections/${encodeURIComponent(id)}/${action}`;

function activationForm(view: DashboardView, c: Connection): Html {
  const activation = c.readiness['activation'] as { family?: string; fields?: ActivationField[] } | undefined;
  if (c.status === 'active' || !activation?.family || !activation.fields) return html``;
  const hints = (c.readiness['sandboxActivation'] ?? {}) as Record<string, string>;
  const fields = activation.fields.map(
    (f) => html`<label for="${`${c.id}-${f.name}`}">${f.name} <span class="muted">(${f.description})</span></label>
<input id="${`${c.id}-${f.name}`}" name="${f.name}" type="text" autocomplete="off" ${f.name === 'senderId' ? '' : html`required`} value="${hints[f.name] ?? ''}">`,
  );
  return html`<form method="post" action="${connectionAction(c.id, 'activate')}" class="stack">${csrfField(view)}
<p>Activate with what the bank gave you (family ${activation.family})${c.readiness['sandboxActivation'] ? ': the sandbox bank simulator issued the values filled in' : ''}.</p>
${fields}<div class="actions"><button type="submit" class="primary">Activate</button></div></form>`;
}

function certificateForm(view: DashboardView, c: Connection): Html {
  if (c.channel !== 'FI_WS') return html``;
  return html`<form method="post" action="${connectionAction(c.id, 'signing-cert')}" class="stack">${csrfField(view)}
<label for="${`${c.id}-cert`}">The bank's signing certificate (PEM)</label>
<textarea id="${`${c.id}-cert`}" name="cert" rows="4" cols="64" required></textarea>
<div class="actions"><button type="submit">Pin the certificate</button></div></form>`;
}

function testPayment(view: DashboardView, c: Connection): Html {
  if (c.environment !== 'test' || c.deliveryMode !== 'host-to-host') return html``;
  const last = c.readiness['lastTestPayment'] as { journalNo?: string; documentId?: string; status?: string } | null;
  return html`<form method="post" action="${connectionAction(c.id, 'test-payment')}" class="inline">${csrfField(view)}<button type="submit">Send a test payment</button></form>
${last ? html`<p>Last test payment: ${last.documentId ? html`<a href="${`/dashboard/journal/${encodeURIComponent(last.documentId)}`}">${last.journalNo ?? last.documentId}</a>` : ''} ${badge(last.status)}</p>` : ''}`;
}

function connectionCard(view: DashboardView, c: Connection): Html {
  const missing = (c.readiness['missing'] as string[] | undefined) ?? [];
  const cert = c.readiness['certificate'] as { subject?: string; expiry?: string } | null | undefined;
  return html`<section class="card"><h2>${c.bankName} <span class="muted">(${c.environment})</span></h2>
<dl class="facts"><dt>Status</dt><dd>${badge(c.status)}</dd><dt>Ready</dt><dd>${c.readiness['ready'] === true ? badge('ready') : html`no: missing ${missing.join(', ')}`}</dd>
<dt>Channel</dt><dd>${c.channel ?? c.deliveryMode}</dd>
${cert ? html`<dt>Certificate</dt><dd>${cert.subject ?? ''}, expires ${when(cert.expiry)}</dd>` : ''}
${c.signingCertSubject ? html`<dt>Bank certificate</dt><dd>${c.signingCertSubject}, expires ${when(c.signingCertExpiry)}</dd>` : ''}</dl>
${activationForm(view, c)}${ebicsPanel(view, c)}${certificateForm(view, c)}${testPayment(view, c)}</section>`;
}

function createForm(view: DashboardView): Html {
  const banks = listProfiles()
    .filter((p) => !p.unsupported)
    .map((p) => html`<option value="${p.key}">${p.bankName} (${p.key})</option>`);
  return html`<h2>Connect a bank</h2><form method="post" action="/dashboard/connections" class="stack">${csrfField(view)}
<label for="conn-bank">Bank</label><select id="conn-bank" name="bankKey">${banks}</select>
<label for="conn-env">Environment</label><select id="conn-env" name="environment"><option value="test">test</option><option value="production">production</option></select>
<div class="actions"><button type="submit" class="primary">Create the connection</button></div></form>`;
}

async function page(ctx: HttpServices['ctx'], view: DashboardView, notices: Notice[] = [], status = 200) {
  const companyId = currentCompanyId(view);
  const list = await listCompanyConnections(ctx, view.session, view.session.platformId, companyId);
  return {
    title: 'Bank connections',
    active: 'connections',
    notices,
    status,
    body: html`<div class="cards">${list.items.map((c) => connectionCard(view, c))}</div>${createForm(view)}`,
  };
}

/**
 * Bank connections for a company admin, through the connection routes' use cases: readiness, creating
 * one, activation for both web-services families, EBICS onboarding (keys, letter, HPB, confirming the
 * bank's hashes), pinning the bank's certificate, test payments.
 */
export const connectionPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard/connections', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    return sendDashboardPage(reply, view, await page(ctx, view));
  });

  /** Runs a form's use case and shows the page again with what happened (the bank's refusal included). */
  async function act(view: DashboardView, run: () => Promise<string>) {
    try {
      return page(ctx, view, [{ kind: 'ok', text: await run() }]);
    } catch (error) {
      // A refusal (the bank's words are in the message) or an unreachable bank (502): said on the page.
      if (!(error instanceof AppError)) throw error;
      return page(ctx, view, [{ kind: 'error', text: error.message }], error.status);
    }
  }

  app.post('/dashboard/connections', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const form = parseForm(request.body);
    const params = form.ok ? form.params : {};
    const shown = await act(view, async () => {
      const created = await createConnection(ctx, view.session, {
        platformId: view.session.platformId,
        companyId: currentCompanyId(view),
        bankKey: params['bankKey'] ?? '',
        environment: params['environment'],
      });
      return `The ${created.environment} connection to ${created.bankName} is ${created.status}.`;
    });
    return sendDashboardPage(reply, view, shown);
  });

  /** The EBICS initialisation letter, to print and send to the bank (as GET /connections/{id}/ebics/letter). */
  app.get('/dashboard/connections/:id/ebics-letter', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const { id } = request.params as { id: string };
    const letter = await ebicsLetter(ctx, view.session, {
      connectionId: id,
      platformId: view.session.platformId,
      companyId: currentCompanyId(view),
    });
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(letter);
  });

  app.post('/dashboard/connections/:id/:action', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const { id, action } = request.params as { id: string; action: string };
    const form = parseForm(request.body);
    const params: Record<string, string> = form.ok ? form.params : {};
    const scope = { connectionId: id, platformId: view.session.platformId, companyId: currentCompanyId(view) };
    const shown = await act(view, async () => {
      switch (action) {
        case 'activate': {
          const family = params['pin'] !== undefined ? 'A' : 'B';
          const value = (name: string) => params[name] ?? '';
          await activateConnection(
            ctx,
            view.session,
            family === 'A'
              ? { ...scope, family, fields: { userId: value('userId'), pin: value('pin') } }
              : {
                  ...scope,
                  family,
                  fields: {
                    holderName: value('holderName'),
                    signerId: value('signerId'),
                    country: value('country'),
                    activationCode: value('activationCode'),
                    senderId: params['senderId'] || undefined,
                  },
                },
          );
          return 'The connection is activated: the bank issued its certificate.';
        }
        case 'signing-cert':
          await pinSigningCertificate(ctx, view.session, { ...scope, cert: params['cert'] ?? '' });
          return "The bank's signing certificate is pinned.";
        case 'ebics-init':
          await initEbics(ctx, view.session, {
            ...scope,
            hostId: params['hostId'] ?? '',
            partnerId: params['partnerId'] ?? '',
            userId: params['userId'] ?? '',
          });
          return 'The EBICS keys are sent (INI and HIA): print the letter for the bank.';
        case 'ebics-bank-keys': {
          const got = await fetchEbicsBankKeys(ctx, view.session, scope);
          return `HPB received the bank keys (${got.state}): compare their hashes with what the bank published.`;
        }
        case 'ebics-confirm':
          await confirmEbicsBankKeys(ctx, view.session, {
            ...scope,
            authenticationHash: params['authenticationHash'] ?? '',
            encryptionHash: params['encryptionHash'] ?? '',
          });
          return 'The bank keys are confirmed: the connection is active over EBICS.';
        case 'test-payment': {
          const sent = await sendTestPayment(ctx, view.session, scope);
          return `Test payment ${sent.journalNo} sent; its outcome shows below as the bank answers.`;
        }
        default:
          throw new AppError('not_found', 'no such connection action');
      }
    });
    return sendDashboardPage(reply, view, shown);
  });
};
