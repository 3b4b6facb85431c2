import type { FastifyReply } from 'fastify';
import type { ConsentView } from '../../app/oauth/consent.ts';
import { escapeHtml, hiddenFields, sendPage } from './html.ts';

/** The authorization request as the forms carry it on (OAuth parameter names). */
export type RequestFields = Record<string, string | undefined>;

/** 400: the client or redirect URI cannot be trusted, so nothing is sent back to the application. */
export function untrustedPage(reply: FastifyReply, reason: string): FastifyReply {
  return sendPage(
    reply,
    400,
    'Application request refused',
    `<h1>This sign-in request cannot be used</h1>
<p class="error">${escapeHtml(reason)}.</p>
<p>Nothing was sent back to the application. Ask whoever set it up to check its client id and its registered redirect URI.</p>`,
  );
}

export function signInPage(
  reply: FastifyReply,
  input: {
    status: number;
    fields: RequestFields;
    signInToken: string;
    clientName: string;
    error?: string;
    email?: string;
  },
): FastifyReply {
  const error = input.error ? `<p class="error">${escapeHtml(input.error)}</p>` : '';
  return sendPage(
    reply,
    input.status,
    'Sign in',
    `<h1>Sign in to approve ${escapeHtml(input.clientName)}</h1>
<p>An application asks to act for you. Sign in as a company or workspace admin to review what it asks for.</p>
${error}
<form method="post" action="/oauth/authorize/sign-in">
${hiddenFields({ ...input.fields, sign_in_token: input.signInToken })}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(input.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>`,
  );
}

/** The second sign-in step for a user with 2FA: the code from the authenticator app, or a recovery code. */
export function codePage(
  reply: FastifyReply,
  input: {
    status: number;
    fields: RequestFields;
    signInToken: string;
    clientName: string;
    challengeToken: string;
    error?: string;
  },
): FastifyReply {
  const error = input.error ? `<p class="error">${escapeHtml(input.error)}</p>` : '';
  return sendPage(
    reply,
    input.status,
    'Two-factor code',
    `<h1>Sign in to approve ${escapeHtml(input.clientName)}</h1>
<p>Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
${error}
<form method="post" action="/oauth/authorize/sign-in/2fa">
${hiddenFields({ ...input.fields, sign_in_token: input.signInToken, challenge_token: input.challengeToken })}
<label for="code">Code</label><input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" required>
<div class="actions"><button class="primary" type="submit">Continue</button></div>
</form>`,
  );
}

/** 403: signed in, but not someone who may consent. The application can still be told no. */
export function notAdminPage(
  reply: FastifyReply,
  input: { fields: RequestFields; csrfToken: string; clientName: string; email: string },
): FastifyReply {
  return sendPage(
    reply,
    403,
    'Admin approval needed',
    `<h1>Only an admin can approve ${escapeHtml(input.clientName)}</h1>
<p>You are signed in as ${escapeHtml(input.email)}, who is not a company or workspace admin. Ask an admin to sign in and approve the application.</p>
<form method="post" action="/oauth/authorize/decision">
${hiddenFields({ ...input.fields, csrf_token: input.csrfToken })}
<div class="actions"><button type="submit" name="decision" value="deny">Return to the application</button></div>
</form>`,
  );
}

export function consentPage(
  reply: FastifyReply,
  input: { fields: RequestFields; csrfToken: string; view: ConsentView },
): FastifyReply {
  const { view } = input;
  const scopes = view.scopes
    .map((s) => `<li><code>${escapeHtml(s.scope)}</code>: ${escapeHtml(s.description)}</li>`)
    .join('\n');
  return sendPage(
    reply,
    200,
    `Approve ${view.clientName}`,
    `<h1>Approve ${escapeHtml(view.clientName)}?</h1>
<p>Signed in as ${escapeHtml(view.userEmail)}. The application will act for you on ${escapeHtml(view.reach)}, for as long as you stay an admin there, and may:</p>
<ul>
${scopes}
</ul>
<p class="muted">It will never be able to set up or activate bank connections, manage approval policies, decide approvals, or manage applications. You can revoke its access at any time (DELETE /oauth/grants/{id}).</p>
<p class="muted">After your answer the browser returns to <code>${escapeHtml(view.redirectUri)}</code> on this computer.</p>
<form method="post" action="/oauth/authorize/decision">
${hiddenFields({ ...input.fields, csrf_token: input.csrfToken })}
<div class="actions"><button class="primary" type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button></div>
</form>`,
  );
}
