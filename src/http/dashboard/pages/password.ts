import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../../app/errors.ts';
import { changePassword } from '../../../app/identity/change-password.ts';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../../app/identity/validation.ts';
import { parseForm } from '../../plugins/form-body.ts';
import type { HttpServices } from '../../services.ts';
import { type FieldErrors, inputField } from '../fields.ts';
import { dashboardView } from '../guard.ts';
import { type Html, html } from '../html.ts';
import { csrfField, type DashboardView, type Notice, sendDashboardPage } from '../layout.ts';

/** The form; passwords are never written back into it (a page may be cached or shown to someone else). */
function passwordForm(view: DashboardView, errors: FieldErrors): Html {
  const rules = html` required minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}" autocomplete="new-password"`;
  return html`<p>Changing your password signs out your other sessions (other browsers and devices); this one stays signed in.</p>
<form method="post" action="/dashboard/security/password" class="stack">${csrfField(view)}
${inputField({ id: 'pw-current', name: 'currentPassword', label: 'Current password', type: 'password', errors, extra: html` required maxlength="${PASSWORD_MAX}" autocomplete="current-password"` })}
${inputField({ id: 'pw-new', name: 'newPassword', label: `New password (at least ${PASSWORD_MIN} characters)`, type: 'password', errors, extra: rules })}
${inputField({ id: 'pw-again', name: 'newPasswordAgain', label: 'New password again', type: 'password', errors, extra: rules })}
<div class="actions"><button type="submit" class="primary">Change password</button></div></form>
<p><a href="/dashboard/security">Back to security</a></p>`;
}

/** Which field an error of the change-password use case is about (its details name the API's field). */
function errorsOf(error: AppError): FieldErrors {
  const field = error.details?.['field'];
  if (field === 'currentPassword') return { currentPassword: error.message };
  if (field === 'password') return { newPassword: error.message };
  return {};
}

/**
 * Change password for the signed-in user (POST /auth/change-password's use case): the current
 * password, the new one twice (the page checks that the two agree; the use case checks the same
 * length rules as the API), the user's other sessions revoked and this one kept.
 */
export const passwordPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  const show = (view: DashboardView, errors: FieldErrors = {}, notices: Notice[] = [], status = 200) => ({
    title: 'Change your password',
    active: 'security',
    notices,
    status,
    body: passwordForm(view, errors),
  });

  app.get('/dashboard/security/password', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    return sendDashboardPage(reply, view, show(view));
  });

  app.post('/dashboard/security/password', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const form = parseForm(request.body);
    const params: Record<string, string> = form.ok ? form.params : {};
    const current = params['currentPassword'] ?? '';
    const next = params['newPassword'] ?? '';
    if (next !== (params['newPasswordAgain'] ?? '')) {
      const errors = { newPasswordAgain: 'the two new passwords differ' };
      return sendDashboardPage(reply, view, show(view, errors, [{ kind: 'error', text: 'Nothing was changed.' }], 400));
    }
    try {
      const done = await changePassword(ctx, view.session, current, next);
      const others = done.sessionsRevoked;
      const text = `Your password is changed. ${others === 0 ? 'No other session was open.' : `${others} other session${others === 1 ? ' was' : 's were'} signed out.`}`;
      return sendDashboardPage(reply, view, {
        ...show(view, {}, [{ kind: 'ok', text }]),
        body: html`<p><a href="/dashboard/security">Back to security</a></p>`,
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500 || error.status === 401) throw error;
      const errors = errorsOf(error);
      const text = Object.keys(errors).length > 0 ? 'Nothing was changed.' : `Nothing was changed: ${error.message}.`;
      return sendDashboardPage(reply, view, show(view, errors, [{ kind: 'error', text }], error.status));
    }
  });
};
