import type { FastifyPluginAsync } from 'fastify';
import { approve, reject } from '../../../app/approvals/decide.ts';
import { listCompanyPolicies, removePolicy } from '../../../app/approvals/policies.ts';
import { listQueue } from '../../../app/approvals/queue.ts';
import type { ApprovalView } from '../../../app/approvals/view.ts';
import { AppError } from '../../../app/errors.ts';
import { parseForm } from '../../plugins/form-body.ts';
import type { HttpServices } from '../../services.ts';
import { badge, param, when } from '../format.ts';
import { currentCompanyId, dashboardView } from '../guard.ts';
import { type Html, href, html } from '../html.ts';
import { csrfField, type DashboardView, type Notice, sendDashboardPage } from '../layout.ts';

const STATUSES = ['pending', 'approved', 'rejected', 'cancelled', 'expired'];
const approvalPath = (id: string, action: string) => `/dashboard/approvals/${encodeURIComponent(id)}/${action}`;

/** Approve (with the 2FA code field when the policy wants one) and reject with a reason, or why not. */
export function decisionForms(view: DashboardView, a: ApprovalView): Html {
  if (a.status !== 'pending') return html``;
  if (!a.canApprove) return html`<p class="muted">${a.blockReason ?? 'You cannot decide this approval.'}</p>`;
  const code = a.twoFactorRequired
    ? html`<label for="${`code-${a.id}`}">2FA code</label><input id="${`code-${a.id}`}" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required pattern="[0-9]{6}|[A-Za-z0-9-]{8,}">`
    : '';
  return html`<div class="decide">
<form method="post" action="${approvalPath(a.id, 'approve')}" class="inline">${csrfField(view)}${code}<button type="submit" class="primary">Approve ${a.journalNo}</button></form>
<form method="post" action="${approvalPath(a.id, 'reject')}" class="inline">${csrfField(view)}
<label for="${`reason-${a.id}`}">Reason for rejecting</label><input id="${`reason-${a.id}`}" name="reason" type="text" required maxlength="500">
<button type="submit" class="danger">Reject ${a.journalNo}</button></form></div>`;
}

/** The approval summary (DESIGN.md, Approvals), as the queue and the document page show it. */
export function approvalSummary(view: DashboardView, a: ApprovalView): Html {
  const groups =
    a.groups.length > 0
      ? html`<dt>Groups</dt><dd>${a.groups.map((g) => html`${g.name} ${g.satisfied ? '✔' : '…'} `)}</dd>`
      : '';
  return html`<section class="card approval"><h2><a href="${`/dashboard/journal/${encodeURIComponent(a.documentId)}`}">${a.journalNo}</a> ${badge(a.status)}</h2>
<dl class="facts"><dt>Payee</dt><dd>${a.payeeName ?? '–'}</dd>
<dt>Total</dt><dd>${a.journalTotal ?? '–'} ${a.currency ?? ''} (largest ${a.maxTransaction ?? '–'} to ${a.maxTransactionPayee ?? '–'})</dd>
<dt>Policy</dt><dd>${a.policyName ?? a.policyId ?? ''}: ${a.requiredApprovals} approval(s)${a.orderedApproval ? ', in group order' : ''}${a.twoFactorRequired ? ', each with a 2FA code' : ''}</dd>
${groups}
<dt>Approved by</dt><dd>${a.approvals.length === 0 ? '–' : a.approvals.map((d) => html`${d.userName} (${when(String(d.at))}) `)}</dd>
${a.rejections.length > 0 ? html`<dt>Rejected by</dt><dd>${a.rejections.map((d) => html`${d.userName}: ${d.reason ?? ''} `)}</dd>` : ''}
<dt>Expires</dt><dd>${when(a.expiresAt)}</dd></dl>
${decisionForms(view, a)}</section>`;
}

function policiesSection(view: DashboardView, policies: Awaited<ReturnType<typeof listCompanyPolicies>>): Html {
  const rows = policies.items.map(
    (
      p,
    ) => html`<tr><td><a href="${`/dashboard/approval-policies/${encodeURIComponent(p.id)}`}" aria-label="${`Edit the policy ${p.name}`}">${p.name}</a></td><td>${p.enabled ? 'yes' : 'no'}</td><td>${p.environment}</td><td>${p.currency ?? 'any'}</td><td class="num">${p.minAmount}</td>
<td>${p.bankKeys ? p.bankKeys.join(', ') : 'any'}</td><td class="num">${p.requiredApprovals}</td>
<td>${p.groups.length === 0 ? 'any approver' : html`${p.groups.map((g, i) => html`${i > 0 ? (p.orderedApproval ? ' → ' : ', ') : ''}${g.name} (${g.userIds.length})`)}${p.requireOneFromEachGroup && !p.orderedApproval ? '; one from each' : ''}`}</td>
<td>${p.twoFactorRequired ? 'yes' : 'no'}</td>
<td><form method="post" action="${`/dashboard/approval-policies/${encodeURIComponent(p.id)}/delete`}" class="inline">${csrfField(view)}<button type="submit" class="danger" aria-label="${`Remove the policy ${p.name}`}">Remove</button></form></td></tr>`,
  );
  return html`<h2>Approval policies</h2>
${rows.length === 0 ? html`<p>No policy: payments go straight to the bank.</p>` : html`<table><thead><tr><th scope="col">Name</th><th scope="col">Enabled</th><th scope="col">Environment</th><th scope="col">Currency</th><th scope="col" class="num">From amount</th><th scope="col">Banks</th><th scope="col" class="num">Approvals</th><th scope="col">Groups</th><th scope="col">2FA</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${rows}</tbody></table>`}
<p><a href="/dashboard/approval-policies/new">New approval policy</a></p>`;
}

/** The approvals page: the queue in one status, and the policies for an admin (also after a policy form). */
export async function approvalsPage(
  ctx: HttpServices['ctx'],
  view: DashboardView,
  status: string,
  cursor: string | undefined,
  notices: Notice[] = [],
  code = 200,
) {
  const companyId = currentCompanyId(view);
  const [queue, policies] = await Promise.all([
    listQueue(ctx, view.session, { platformId: view.session.platformId, companyId, status, cursor, limit: 50 }),
    view.workspace.admin ? listCompanyPolicies(ctx, view.session, view.session.platformId, companyId) : undefined,
  ]);
  const tabs = STATUSES.map(
    (s) =>
      html`<a href="${href('/dashboard/approvals', { status: s })}"${s === status ? html` aria-current="true"` : ''}>${s}</a> `,
  );
  const next = queue.nextCursor
    ? html`<a rel="next" href="${href('/dashboard/approvals', { status, cursor: queue.nextCursor })}">Next page</a>`
    : '';
  return {
    title: 'Approvals',
    active: 'approvals',
    notices,
    status: code,
    body: html`<p class="pager">${tabs}</p>
${queue.items.length === 0 ? html`<p>No ${status} approvals.</p>` : html`<div class="cards">${queue.items.map((a) => approvalSummary(view, a))}</div>`}
<p class="pager">${next}</p>
${policies ? policiesSection(view, policies) : ''}`,
  };
}

/**
 * Approvals: the queue with each approval's summary, approve (asking for the 2FA code when the policy
 * wants it) and reject with a reason; the company's policies for an admin. Through the approval
 * routes' use cases (GET /approvals, POST /approvals/{id}/approve|reject, /approval-policies).
 */
export const approvalPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard/approvals', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const status = param(request.query, 'status') ?? 'pending';
    return sendDashboardPage(reply, view, await approvalsPage(ctx, view, status, param(request.query, 'cursor')));
  });

  async function act(view: DashboardView, run: () => Promise<string>) {
    try {
      return approvalsPage(ctx, view, 'pending', undefined, [{ kind: 'ok', text: await run() }]);
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return approvalsPage(ctx, view, 'pending', undefined, [{ kind: 'error', text: error.message }], error.status);
    }
  }

  app.post('/dashboard/approvals/:id/:decision', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const { id, decision } = request.params as { id: string; decision: string };
    const form = parseForm(request.body);
    const params: Record<string, string> = form.ok ? form.params : {};
    const shown = await act(view, async () => {
      if (decision === 'approve') {
        const done = await approve(ctx, view.session, id, { code: params['code'] || undefined });
        return done.status === 'approved'
          ? `${done.journalNo} is approved and goes to the bank.`
          : `Your approval of ${done.journalNo} is recorded; it needs more.`;
      }
      if (decision === 'reject') {
        const done = await reject(ctx, view.session, id, { reason: params['reason'] ?? '' });
        return `${done.journalNo} is rejected and cancelled.`;
      }
      throw new AppError('not_found', 'no such decision');
    });
    return sendDashboardPage(reply, view, shown);
  });

  app.post('/dashboard/approval-policies/:id/delete', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const id = (request.params as { id: string }).id;
    const shown = await act(view, async () => {
      await removePolicy(ctx, view.session, id, {
        platformId: view.session.platformId,
        companyId: currentCompanyId(view),
      });
      return 'The policy is removed; approvals already waiting keep their rules.';
    });
    return sendDashboardPage(reply, view, shown);
  });
};
