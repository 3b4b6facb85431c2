import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { dashboardWorkspace } from '../../app/dashboard/workspace.ts';
import { AppError } from '../../app/errors.ts';
import { isPublic } from '../access/route-access.ts';
import { csrfTokenFor, sameSecret } from '../plugins/browser-session.ts';
import { parseForm } from '../plugins/form-body.ts';
import { html } from './html.ts';
import { type DashboardView, sendPlainPage } from './layout.ts';

/** Whether this route is a signed-in dashboard page or form (route access table: DASHBOARD). */
function guarded(request: FastifyRequest): boolean {
  const access = request.routeOptions.config.access;
  return access !== undefined && isPublic(access) && access.browser === 'dashboard';
}

/** A `next` to return to after signing in: a dashboard path on this site only. */
export function safeNext(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return /^\/dashboard(?:[/?]|$)/.test(value) && !value.includes('\\') && !value.startsWith('//') ? value : undefined;
}

/**
 * The dashboard's guard, for the routes the access table marks DASHBOARD: without a live browser
 * session the browser goes to the sign-in page (and back after it, for a page it asked for); a form
 * post is taken only with the CSRF token of the page that made the form (the token is an HMAC of the
 * session token, so another site can make the browser post but cannot read the token to send it).
 */
export function registerDashboardGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!guarded(request) || request.browserSession !== null) return;
    const next = request.method === 'GET' ? safeNext(request.url) : undefined;
    const query = next && next !== '/dashboard' ? `?next=${encodeURIComponent(next)}` : '';
    return reply.redirect(`/dashboard/sign-in${query}`, 303);
  });
  app.addHook('preHandler', async (request, reply) => {
    if (!guarded(request) || request.method === 'GET' || request.method === 'HEAD') return;
    const session = request.browserSession;
    const form = parseForm(request.body);
    // A form no page of ours makes (a NUL in a field): refused here, for every form at once.
    if (!form.ok && Buffer.isBuffer(request.body)) {
      return sendPlainPage(
        reply,
        400,
        'Form refused',
        html`<h1>This form could not be read</h1>
<p class="notice error" role="alert">${form.reason}. Nothing was changed.</p>
<p><a href="/dashboard">Back to the dashboard</a></p>`,
      );
    }
    const sent = form.ok ? form.params['csrf_token'] : undefined;
    if (session && sameSecret(sent, csrfTokenFor(session.token))) return;
    return sendPlainPage(
      reply,
      403,
      'Form refused',
      html`<h1>This form was refused</h1>
<p class="notice error" role="alert">The form is stale or did not come from this dashboard (its CSRF token is missing or wrong). Nothing was changed.</p>
<p><a href="/dashboard">Back to the dashboard</a></p>`,
    );
  });
}

/** The signed-in frame of a guarded page: the session, its CSRF token and the company shown. */
export async function dashboardView(ctx: AppContext, request: FastifyRequest): Promise<DashboardView> {
  const browser = request.browserSession;
  if (!browser) throw new AppError('unauthorized', 'sign in first');
  return {
    session: browser.principal,
    csrf: csrfTokenFor(browser.token),
    workspace: dashboardWorkspace(ctx, browser.principal),
    sandbox: ctx.config.sandbox,
  };
}

/** The company a page reads (a member's, checked by dashboardWorkspace), or a page asking to pick one. */
export function currentCompanyId(view: DashboardView): string {
  const companyId = view.workspace.companyId;
  if (companyId === null) throw new AppError('no_company', 'choose a company with the switcher first');
  return companyId;
}

/** Answers a failure of a dashboard page as a page (never the JSON envelope a browser cannot use). */
export function dashboardErrorPage(reply: FastifyReply, error: unknown): FastifyReply {
  if (error instanceof AppError) {
    if (error.status === 401) return reply.redirect('/dashboard/sign-in', 303);
    return sendPlainPage(
      reply,
      error.status,
      'Not available',
      html`<h1>${error.status === 404 ? 'Not found' : 'Not available'}</h1>
<p class="notice error" role="alert">${error.message}</p>
<p><a href="/dashboard">Back to the dashboard</a></p>`,
    );
  }
  reply.log.error({ err: error }, 'dashboard page failed');
  return sendPlainPage(
    reply,
    500,
    'Something went wrong',
    html`<h1>Something went wrong</h1><p>The page could not be shown. Quote the request id ${String(reply.request.id)} when reporting it.</p>
<p><a href="/dashboard">Back to the dashboard</a></p>`,
  );
}
