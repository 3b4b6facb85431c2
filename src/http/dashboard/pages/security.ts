import type { FastifyPluginAsync } from 'fastify';
import QRCode from 'qrcode';
import { AppError } from '../../../app/errors.ts';
import { listMySessions, revokeMySession } from '../../../app/identity/sessions.ts';
import {
  disableTwoFactor,
  enableTwoFactor,
  regenerateRecoveryCodes,
  setupTwoFactor,
  twoFactorStatus,
} from '../../../app/identity/two-factor.ts';
import { deleteGrant, listGrants } from '../../../app/oauth/grants.ts';
import { parseForm } from '../../plugins/form-body.ts';
import type { HttpServices } from '../../services.ts';
import { when } from '../format.ts';
import { dashboardView } from '../guard.ts';
import { generatedSvg, type Html, html } from '../html.ts';
import { csrfField, type DashboardView, type Notice, sendDashboardPage } from '../layout.ts';

function codeField(id: string, label = 'Code from your authenticator app'): Html {
  return html`<label for="${id}">${label}</label><input id="${id}" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required>`;
}

function recoveryCodes(codes: string[]): Html {
  return html`<div class="notice ok" role="status"><p>Your recovery codes, shown this once: each signs you in once if you lose your authenticator. Store them somewhere safe.</p>
<ul class="secret" id="recovery-codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ul></div>`;
}

/** Enrolment: the otpauth URL as a QR code (inline SVG: markup, not a loaded resource) and as text. */
async function enrolment(view: DashboardView, setup: { secret: string; otpauthUrl: string }): Promise<Html> {
  const svg = await QRCode.toString(setup.otpauthUrl, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: 2,
    width: 200,
  });
  return html`<div class="card"><h2>Finish setting up 2FA</h2>
<p>Scan the code with your authenticator app, or type the secret into it, then enter the code it shows.</p>
<figure class="qr" role="img" aria-label="QR code of your 2FA secret">${generatedSvg(svg)}</figure>
<p>Secret: <code id="totp-secret">${setup.secret}</code></p>
<form method="post" action="/dashboard/security/2fa/enable" class="stack">${csrfField(view)}${codeField('enable-code')}
<div class="actions"><button type="submit" class="primary">Enable 2FA</button></div></form></div>`;
}

async function page(
  ctx: HttpServices['ctx'],
  view: DashboardView,
  notices: Notice[] = [],
  lead: Html = html``,
  status = 200,
) {
  const [sessions, twoFactor, grants] = await Promise.all([
    listMySessions(ctx, view.session),
    twoFactorStatus(ctx, view.session),
    listGrants(ctx, view.session, undefined, 100),
  ]);
  const sessionRows = sessions.items.map(
    (
      s,
    ) => html`<tr><td>${when(s.createdAt)}</td><td>${when(s.lastSeenAt)}</td><td>${s.ip ?? ''}</td><td>${s.userAgent ?? ''}</td>
<td>${s.current ? html`<strong>this browser</strong>` : html`<form method="post" action="${`/dashboard/security/sessions/${encodeURIComponent(s.id)}/revoke`}" class="inline">${csrfField(view)}<button type="submit" class="danger">Revoke</button></form>`}</td></tr>`,
  );
  const twoFactorSection = twoFactor.enabled
    ? html`<p>2FA is <strong>enabled</strong>; ${twoFactor.recoveryCodesLeft} recovery code(s) left.</p>
<form method="post" action="/dashboard/security/2fa/recovery-codes" class="stack">${csrfField(view)}${codeField('regen-code')}
<div class="actions"><button type="submit">New recovery codes</button></div></form>
<form method="post" action="/dashboard/security/2fa/disable" class="stack">${csrfField(view)}${codeField('disable-code', 'Code (or a recovery code) to turn 2FA off')}
<div class="actions"><button type="submit" class="danger">Disable 2FA</button></div></form>`
    : html`<p>2FA is <strong>off</strong>. With it, signing in and approvals that need it ask for a code from an authenticator app.</p>
<form method="post" action="/dashboard/security/2fa/setup">${csrfField(view)}<button type="submit" class="primary">Set up 2FA</button></form>`;
  const grantRows = grants.items.map(
    (
      g,
    ) => html`<tr><td>${g.clientName}</td><td>${g.scopes.join(' ')}</td><td>${when(g.createdAt)}</td><td>${when(g.lastUsedAt)}</td>
<td><form method="post" action="${`/dashboard/security/grants/${encodeURIComponent(g.id)}/revoke`}" class="inline">${csrfField(view)}<button type="submit" class="danger">Revoke</button></form></td></tr>`,
  );
  return {
    title: 'Security',
    active: 'security',
    notices,
    status,
    body: html`${lead}<h2>Password</h2>
<p><a href="/dashboard/security/password">Change your password</a> (your other sessions are signed out).</p>
<h2>Two-factor authentication</h2>${twoFactorSection}
<h2>Your sessions</h2>
<table><thead><tr><th scope="col">Signed in</th><th scope="col">Last seen</th><th scope="col">Address</th><th scope="col">Browser</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${sessionRows}</tbody></table>
<h2>Applications with access</h2>
<p>Installed applications you (or, for a workspace admin, anyone on the workspace) allowed to act for you. Revoking one ends every token it holds.</p>
${grantRows.length === 0 ? html`<p>No application has access.</p>` : html`<table><thead><tr><th scope="col">Application</th><th scope="col">Scopes</th><th scope="col">Granted</th><th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${grantRows}</tbody></table>`}`,
  };
}

/**
 * Security: 2FA (setup with a QR code, enable with the recovery codes shown once, new codes, disable),
 * the user's sessions with revoke (GET/DELETE /me/sessions) and application grants (/oauth/grants).
 */
export const securityPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard/security', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    return sendDashboardPage(reply, view, await page(ctx, view));
  });

  app.post('/dashboard/security/:area/:id/:action', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const { area, id, action } = request.params as { area: string; id: string; action: string };
    try {
      if (action !== 'revoke') throw new AppError('not_found', 'no such action');
      if (area === 'sessions') await revokeMySession(ctx, view.session, id);
      else if (area === 'grants') await deleteGrant(ctx, view.session, id);
      else throw new AppError('not_found', 'no such action');
      const text = area === 'sessions' ? 'The session is signed out.' : 'The application no longer has access.';
      return sendDashboardPage(reply, view, await page(ctx, view, [{ kind: 'ok', text }]));
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return sendDashboardPage(
        reply,
        view,
        await page(ctx, view, [{ kind: 'error', text: error.message }], html``, error.status),
      );
    }
  });

  app.post('/dashboard/security/2fa/:action', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const action = (request.params as { action: string }).action;
    const form = parseForm(request.body);
    const code = form.ok ? (form.params['code'] ?? '').trim() : '';
    try {
      switch (action) {
        case 'setup': {
          const lead = await enrolment(view, await setupTwoFactor(ctx, view.session));
          return sendDashboardPage(reply, view, await page(ctx, view, [], lead));
        }
        case 'enable': {
          const done = await enableTwoFactor(ctx, view.session, code);
          const notices: Notice[] = [{ kind: 'ok', text: '2FA is enabled.' }];
          return sendDashboardPage(reply, view, await page(ctx, view, notices, recoveryCodes(done.recoveryCodes)));
        }
        case 'recovery-codes': {
          const done = await regenerateRecoveryCodes(ctx, view.session, code);
          return sendDashboardPage(reply, view, await page(ctx, view, [], recoveryCodes(done.recoveryCodes)));
        }
        case 'disable':
          await disableTwoFactor(ctx, view.session, code);
          return sendDashboardPage(reply, view, await page(ctx, view, [{ kind: 'ok', text: '2FA is off.' }]));
        default:
          throw new AppError('not_found', 'no such 2FA action');
      }
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return sendDashboardPage(
        reply,
        view,
        await page(ctx, view, [{ kind: 'error', text: error.message }], html``, error.status),
      );
    }
  });
};
