import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../app/errors.ts';
import { requireSession } from '../../../app/identity/access.ts';
import { enterCompanyContext } from '../../../app/identity/companies.ts';
import {
  completeLoginChallenge,
  type LoginResult,
  login,
  logout,
  type SessionOpened,
} from '../../../app/identity/sessions.ts';
import { clientOf } from '../../plugins/auth.ts';
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

/** The second step for a user with 2FA: the login challenge (in the form, never a URL) and the code. */
function codeForm(input: { token: string; next: string | undefined; challengeToken: string; error?: string }) {
  return html`<h1>Two-factor sign-in</h1>
${input.error ? html`<p class="notice error" role="alert">${input.error}</p>` : ''}
<p>Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
<form method="post" action="/dashboard/sign-in/2fa" class="stack">
<input type="hidden" name="sign_in_token" value="${input.token}">
<input type="hidden" name="challenge_token" value="${input.challengeToken}">
${input.next ? html`<input type="hidden" name="next" value="${input.next}">` : ''}
<label for="code">Code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required autofocus>
<div class="actions"><button class="primary" type="submit">Verify</button></div>
</form>`;
}

/**
 * Sign-in (email and password, then the TOTP or recovery code of a user with 2FA, through the login
 * use cases of POST /auth/login and /auth/login/2fa with their limits), sign-out and the workspace
 * admin's company switcher. The sign-in forms have no session to bind a CSRF token to, so they carry
 * a double-submit token: a random value set as a cookie and put in the form (login CSRF).
 */
export const signInPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  const secure = ctx.config.publicBaseUrl.startsWith('https:');

  app.get('/dashboard/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>)['next']);
    if (request.browserSession) return reply.redirect(next ?? '/dashboard', 303);
    return sendPlainPage(reply, 200, 'Sign in', signInForm({ token: issueSignInToken(reply, secure), next }));
  });

  /** The posted form, checked against the sign-in cookie; `again` shows the first form with an error. */
  function step(request: FastifyRequest, reply: FastifyReply) {
    const form = parseForm(request.body);
    const params: Record<string, string> = form.ok ? form.params : {};
    const next = safeNext(params['next']);
    const again = (status: number, error: string) =>
      sendPlainPage(
        reply,
        status,
        'Sign in',
        signInForm({ token: issueSignInToken(reply, secure), next, email: params['email'] ?? '', error }),
      );
    const signedIn = (session: SessionOpened) => {
      setSessionCookie(reply, session.sessionToken, new Date(session.expiresAt), ctx.clock.now(), secure);
      return reply.redirect(next ?? '/dashboard', 303);
    };
    let refusal: string | undefined;
    if (!form.ok) refusal = 'The form could not be read; please sign in again.';
    else if (!sameSecret(params['sign_in_token'], cookieOf(request, SIGN_IN_COOKIE)))
      refusal = 'The sign-in form expired; please sign in again.';
    return { params, next, again, signedIn, refusal };
  }

  function tooMany(reply: FastifyReply, error: AppError, again: (status: number, text: string) => FastifyReply) {
    if (error.headers) reply.headers(error.headers);
    return again(429, 'Too many sign-in attempts; please wait and try again.');
  }

  app.post('/dashboard/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const s = step(request, reply);
    if (s.refusal) return s.again(s.refusal.includes('expired') ? 403 : 400, s.refusal);
    let outcome: LoginResult;
    try {
      outcome = await login(ctx, s.params['email'] ?? '', s.params['password'] ?? '', clientOf(request));
    } catch (error) {
      if (error instanceof AppError && error.status === 401) return s.again(401, 'Wrong email or password.');
      if (error instanceof AppError && error.status === 429) return tooMany(reply, error, s.again);
      throw error;
    }
    if ('sessionToken' in outcome) return s.signedIn(outcome);
    return sendPlainPage(
      reply,
      200,
      'Two-factor sign-in',
      codeForm({ token: issueSignInToken(reply, secure), next: s.next, challengeToken: outcome.challengeToken }),
    );
  });

  app.post('/dashboard/sign-in/2fa', { schema: { hide: true } }, async (request, reply) => {
    const s = step(request, reply);
    if (s.refusal) return s.again(s.refusal.includes('expired') ? 403 : 400, s.refusal);
    const challengeToken = s.params['challenge_token'] ?? '';
    try {
      return s.signedIn(await completeLoginChallenge(ctx, challengeToken, s.params['code'] ?? '', clientOf(request)));
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_code') {
        return sendPlainPage(
          reply,
          401,
          'Two-factor sign-in',
          codeForm({
            token: issueSignInToken(reply, secure),
            next: s.next,
            challengeToken,
            error: 'Wrong or already used code.',
          }),
        );
      }
      if (error instanceof AppError && error.status === 401)
        return s.again(401, 'The sign-in expired or had too many wrong codes; please sign in again.');
      if (error instanceof AppError && error.status === 429) return tooMany(reply, error, s.again);
      throw error;
    }
  });

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
