import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../../app/errors.ts';
import { deleteGrant, listGrants } from '../../../app/oauth/grants.ts';
import type { HttpServices } from '../../services.ts';
import { when } from '../format.ts';
import { dashboardView } from '../guard.ts';
import { html } from '../html.ts';
import { csrfField, type DashboardView, type Notice, sendDashboardPage } from '../layout.ts';

async function page(ctx: HttpServices['ctx'], view: DashboardView, notices: Notice[] = [], status = 200) {
  const grants = await listGrants(ctx, view.session, undefined, 100);
  const rows = grants.items.map(
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
    body: html`<h2>Applications with access</h2>
<p>Installed applications you (or, for a workspace admin, anyone on the workspace) allowed to act for you. Revoking one ends every token it holds.</p>
${rows.length === 0 ? html`<p>No application has access.</p>` : html`<table><thead><tr><th scope="col">Application</th><th scope="col">Scopes</th><th scope="col">Granted</th><th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${rows}</tbody></table>`}`,
  };
}

/** Security: the user's application grants (GET and DELETE /oauth/grants). */
export const securityPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard/security', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    return sendDashboardPage(reply, view, await page(ctx, view));
  });

  app.post('/dashboard/security/grants/:id/revoke', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    try {
      await deleteGrant(ctx, view.session, (request.params as { id: string }).id);
      return sendDashboardPage(
        reply,
        view,
        await page(ctx, view, [{ kind: 'ok', text: 'The application no longer has access.' }]),
      );
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return sendDashboardPage(
        reply,
        view,
        await page(ctx, view, [{ kind: 'error', text: error.message }], error.status),
      );
    }
  });
};
