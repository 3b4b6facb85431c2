import type { FastifyPluginAsync } from 'fastify';
import { usersWithTwoFactor } from '../../../app/dashboard/users.ts';
import { AppError } from '../../../app/errors.ts';
import { createApiKey, deleteApiKey, listApiKeys } from '../../../app/identity/api-keys.ts';
import { eraseUser, resetUserPassword, updateUser } from '../../../app/identity/user-lifecycle.ts';
import { createUser, ROLES } from '../../../app/identity/users.ts';
import { parseForm } from '../../plugins/form-body.ts';
import type { HttpServices } from '../../services.ts';
import { badge, when } from '../format.ts';
import { currentCompanyId, dashboardView } from '../guard.ts';
import { type Html, html } from '../html.ts';
import { csrfField, type DashboardView, type Notice, sendDashboardPage } from '../layout.ts';

function inviteForm(view: DashboardView): Html {
  const roles = ROLES.map(
    (r) =>
      html`<label class="check"><input type="checkbox" name="${`role:${r}`}" value="on"${r === 'viewer' ? html` checked` : ''}> ${r}</label>`,
  );
  return html`<h2>Invite a user</h2><form method="post" action="/dashboard/users" class="stack">${csrfField(view)}
<label for="user-email">Email</label><input id="user-email" name="email" type="email" required>
<label for="user-name">Name</label><input id="user-name" name="name" type="text" required>
<fieldset><legend>Roles</legend>${roles}</fieldset>
<div class="actions"><button type="submit" class="primary">Send the invitation</button></div></form>`;
}

async function keysSection(ctx: HttpServices['ctx'], view: DashboardView): Promise<Html> {
  if (!view.session.user.workspaceAdmin) return html``;
  const keys = await listApiKeys(ctx, view.session, view.session.platformId, undefined, 100);
  const rows = keys.items.map(
    (
      k,
    ) => html`<tr><td>${k.label}</td><td><code>${k.id}</code></td><td>${when(k.createdAt)}</td><td>${when(k.lastUsedAt)}</td>
<td><form method="post" action="${`/dashboard/api-keys/${encodeURIComponent(k.id)}/revoke`}" class="inline">${csrfField(view)}<button type="submit" class="danger">Revoke</button></form></td></tr>`,
  );
  return html`<h2>API keys of the workspace</h2>
${rows.length === 0 ? html`<p>No active keys.</p>` : html`<table><thead><tr><th scope="col">Label</th><th scope="col">Id</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${rows}</tbody></table>`}
<form method="post" action="/dashboard/api-keys" class="stack">${csrfField(view)}
<label for="key-label">Label of a new key</label><input id="key-label" name="label" type="text" required maxlength="200">
<div class="actions"><button type="submit" class="primary">Create a key</button></div></form>`;
}

async function page(
  ctx: HttpServices['ctx'],
  view: DashboardView,
  notices: Notice[] = [],
  lead: Html = html``,
  status = 200,
) {
  const companyId = currentCompanyId(view);
  const users = await usersWithTwoFactor(ctx, view.session, companyId);
  const userPath = (id: string, action: string) => `/dashboard/users/${encodeURIComponent(id)}/${action}`;
  const manage = (u: (typeof users)[number]) => {
    if (!view.workspace.admin || u.status === 'erased') return html``;
    const roles = ROLES.map(
      (r) =>
        html`<label class="check"><input type="checkbox" name="${`role:${r}`}" value="on"${u.roles.includes(r) ? html` checked` : ''}> ${r}</label>`,
    );
    return html`<form method="post" action="${userPath(u.id, 'roles')}" class="inline" aria-label="${`Roles of ${u.email}`}">${csrfField(view)}${roles}<button type="submit">Save roles</button></form>
<form method="post" action="${userPath(u.id, 'reset-password')}" class="inline">${csrfField(view)}<button type="submit">Reset password</button></form>
<form method="post" action="${userPath(u.id, 'erase')}" class="inline">${csrfField(view)}<button type="submit" class="danger">Erase</button></form>`;
  };
  const rows = users.map(
    (u) =>
      html`<tr><td>${u.name}</td><td>${u.email}</td><td>${u.roles.join(', ')}</td><td>${badge(u.status)}</td><td>${u.twoFactor ? 'on' : 'off'}</td><td>${manage(u)}</td></tr>`,
  );
  return {
    title: 'Users and API keys',
    active: 'users',
    notices,
    status,
    body: html`${lead}<h2>Users of the company</h2>
<table><thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Roles</th><th scope="col">Status</th><th scope="col">2FA</th><th scope="col"><span class="muted">Manage</span></th></tr></thead><tbody>${rows}</tbody></table>
${view.workspace.admin ? inviteForm(view) : ''}
${await keysSection(ctx, view)}`,
  };
}

/** Users of the company (invite for an admin) and the workspace's API keys (created keys shown once). */
export const userPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard/users', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    return sendDashboardPage(reply, view, await page(ctx, view));
  });

  async function act(view: DashboardView, run: () => Promise<{ text: string; lead?: Html }>) {
    try {
      const done = await run();
      return page(ctx, view, [{ kind: 'ok', text: done.text }], done.lead);
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return page(ctx, view, [{ kind: 'error', text: error.message }], html``, error.status);
    }
  }

  app.post('/dashboard/users', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const form = parseForm(request.body);
    const params: Record<string, string> = form.ok ? form.params : {};
    const shown = await act(view, async () => {
      const user = await createUser(ctx, view.session, {
        platformId: view.session.platformId,
        companyId: currentCompanyId(view),
        email: params['email'] ?? '',
        name: params['name'] ?? '',
        roles: ROLES.filter((r) => params[`role:${r}`] === 'on'),
      });
      return { text: `${user.email} is invited: the invitation to set a password is on its way.` };
    });
    return sendDashboardPage(reply, view, shown);
  });

  app.post('/dashboard/users/:id/:action', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const { id, action } = request.params as { id: string; action: string };
    const form = parseForm(request.body);
    const params: Record<string, string> = form.ok ? form.params : {};
    const scope = { platformId: view.session.platformId, companyId: currentCompanyId(view) };
    const shown = await act(view, async () => {
      switch (action) {
        case 'roles': {
          const roles = ROLES.filter((r) => params[`role:${r}`] === 'on');
          const user = await updateUser(ctx, view.session, scope, id, { roles });
          return { text: `${user.email} now has the roles ${user.roles.join(', ')}.` };
        }
        case 'reset-password': {
          await resetUserPassword(ctx, view.session, scope, id);
          return { text: 'The user is signed out everywhere and was sent a link to set a new password.' };
        }
        case 'erase':
          await eraseUser(ctx, view.session, scope, id);
          return {
            text: 'The user is erased: name, email, password, 2FA and sessions removed; the audit trail keeps the id.',
          };
        default:
          throw new AppError('not_found', 'no such user action');
      }
    });
    return sendDashboardPage(reply, view, shown);
  });

  app.post('/dashboard/api-keys', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const form = parseForm(request.body);
    const label = form.ok ? (form.params['label'] ?? '') : '';
    const shown = await act(view, async () => {
      const created = await createApiKey(ctx, view.session, view.session.platformId, label);
      return {
        text: `The key ${created.label} is created.`,
        lead: html`<div class="notice ok" role="status"><p>The key is shown this once; store it now:</p><p class="secret" id="secret">${created.key}</p></div>`,
      };
    });
    return sendDashboardPage(reply, view, shown);
  });

  app.post('/dashboard/api-keys/:id/revoke', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const id = (request.params as { id: string }).id;
    const shown = await act(view, async () => {
      await deleteApiKey(ctx, view.session, view.session.platformId, id);
      return { text: `The key ${id} is revoked.` };
    });
    return sendDashboardPage(reply, view, shown);
  });
};
