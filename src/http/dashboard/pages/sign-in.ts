import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../../app/errors.ts';
import { requireSession } from '../../../app/identity/access.ts';
import { enterCompanyContext } from '../../../app/identity/companies.ts';
import { login, logout } from '../../../app/identity/sessions.ts';
import {
  clearSessionCookie,
  cookieOf,
  issueSignInToken,
  SIGN_IN_COOKIE,
  sameSecret,
  setSessionCookie,
} from '../../plugins/browser-session.ts';
import { parseForm } from '../../plugins/form-body.ts';
import type { HttpServices } from '../../services.ts';
import { safeNext } from '../guard.ts';
import { html } from '../html.ts';
import { sendPlainPage } from '../layout.ts';

const FIFTEEN_MINUTES = 15 * 60 * 1000;

function signInForm(input: { token: string; next: string | undefined; email?: string; error?: string }) {
  return html`<h1>Sign in to payops</h1>
${input.error ? html`<p class="notice error" role="alert">${input.error}</p>` : ''}
<form method="post" action="/dashboard/sign-in" class="stack">
<input type="hidden" name="sign_in_token" value="${input.token}">
${input.next ? html`<input type="hidden" name="next" value="${input.next}">` : ''}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${input.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>`;
}

/**
 * Sign-in (email and password, through the login use case of POST /auth/login), sign-out and the
 * workspace admin's company switcher. The sign-in form has no session to bind a CSRF token to, so
 * it carries a double-submit token: a random value set as a cookie and put in the form (login CSRF).
 */
export const signInPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  const secure = ctx.config.publicBaseUrl.startsWith('https:');

  app.get('/dashboard/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>)['next']);
    if (request.browserSession) return reply.redirect(next ?? '/dashboard', 303);
    return sendPlainPage(reply, 200, 'Sign in', signInForm({ token: issueSignInToken(reply, secure), next }));
  });

  app.post(
    '/dashboard/sign-in',
    {
      schema: { hide: true },
      config: {
        // As POST /auth/login: 10 attempts per 15 minutes for each IP and email pair.
        rateLimit: {
          hook: 'preHandler',
          max: 10,
          timeWindow: FIFTEEN_MINUTES,
          keyGenerator: (request) => {
            const form = parseForm(request.body);
            const email = form.ok ? (form.params['email'] ?? '') : '';
            return `dashboard|${request.ip}|${email.trim().toLowerCase()}`;
          },
        },
      },
    },
    async (request, reply) => {
      const form = parseForm(request.body);
      const params = form.ok ? form.params : {};
      const next = safeNext(params['next']);
      const email = params['email'] ?? '';
      const again = (status: number, error: string) =>
        sendPlainPage(
          reply,
          status,
          'Sign in',
          signInForm({ token: issueSignInToken(reply, secure), next, email, error }),
        );
      if (!form.ok) return again(400, 'The form could not be read; please sign in again.');
      if (!sameSecret(params['sign_in_token'], cookieOf(request, SIGN_IN_COOKIE))) {
        return again(403, 'The sign-in form expired; please sign in again.');
      }
      try {
        const signedIn = await login(ctx, email, params['password'] ?? '');
        setSessionCookie(reply, signedIn.sessionToken, new Date(signedIn.expiresAt), ctx.clock.now(), secure);
        return reply.redirect(next ?? '/dashboard', 303);
      } catch (error) {
        if (error instanceof AppError && error.status === 401) return again(401, 'Wrong email or password.');
        throw error;
      }
    },
  );

  app.post('/dashboard/sign-out', { schema: { hide: true } }, async (request, reply) => {
    const browser = request.browserSession;
    if (browser) await logout(ctx, requireSession(browser.principal));
    clearSessionCookie(reply, secure);
    return reply.redirect('/dashboard/sign-in', 303);
  });

  app.post('/dashboard/company', { schema: { hide: true } }, async (request, reply) => {
    const form = parseForm(request.body);
    const companyId = form.ok ? (form.params['companyId'] ?? '') : '';
    const browser = request.browserSession;
    if (!browser) return reply.redirect('/dashboard/sign-in', 303);
    await enterCompanyContext(ctx, browser.principal, companyId);
    return reply.redirect('/dashboard', 303);
  });
};
