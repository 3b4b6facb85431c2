import type { FastifyPluginAsync } from 'fastify';
import { dashboardOverview } from '../../../app/dashboard/overview.ts';
import type { HttpServices } from '../../services.ts';
import { badge } from '../format.ts';
import { dashboardView } from '../guard.ts';
import { href, html } from '../html.ts';
import { sendDashboardPage } from '../layout.ts';

/** The overview: what needs attention today in the company shown. */
export const overviewPage: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const companyId = view.workspace.companyId;
    if (companyId === null) {
      return sendDashboardPage(reply, view, {
        title: 'Overview',
        active: 'overview',
        body: html`<p>Choose a company with the switcher above to see its payments.</p>`,
      });
    }
    const [o, names] = await Promise.all([dashboardOverview(ctx, view.session, companyId), view.workspace.names]);
    const statusRows = o.byStatus.map(
      (s) =>
        html`<tr><td><a href="${href('/dashboard/journal', { direction: 'outbound', status: s.status })}">${badge(s.status)}</a></td><td class="num">${s.today}</td><td class="num">${s.month}</td></tr>`,
    );
    const admin = o.admin
      ? html`<section class="card"><h2>Failing webhook endpoints</h2>${
          o.failingEndpoints.length === 0
            ? html`<p>None.</p>`
            : html`<ul>${o.failingEndpoints.map((e) => html`<li><a href="${`/dashboard/webhooks/${encodeURIComponent(e.id)}`}">${e.url}</a> ${badge(e.status)} (${e.consecutiveFailures} failures in a row)</li>`)}</ul>`
        }</section>
<section class="card"><h2>Connections not ready</h2>${
          o.unreadyConnections.length === 0
            ? html`<p>All ready.</p>`
            : html`<ul>${o.unreadyConnections.map((c) => html`<li><a href="/dashboard/connections">${c.bankName}</a> (${c.environment}): missing ${Array.isArray(c.missing) ? c.missing.join(', ') : ''}</li>`)}</ul>`
        }</section>`
      : '';
    return sendDashboardPage(reply, view, {
      title: `Overview of ${names.current ?? companyId}`,
      active: 'overview',
      body: html`<div class="cards">
<section class="card"><h2>Payments by status</h2>
<table><thead><tr><th scope="col">Status</th><th scope="col" class="num">Today</th><th scope="col" class="num">This month</th></tr></thead>
<tbody>${statusRows}</tbody></table></section>
<section class="card"><h2>Approvals for you</h2>${
        o.approvalsForMeCount === 0
          ? html`<p>Nothing waits for your approval${o.pendingApprovals > 0 ? html` (${o.pendingApprovals} pending, none you can approve now)` : ''}.</p>`
          : html`<p class="count">${o.approvalsForMeCount} ${o.approvalsForMeCount === 1 ? 'payment waits' : 'payments wait'} for your approval (${o.pendingApprovals} pending in all)${o.approvalsForMe.length === 0 ? '.' : o.approvalsForMeCount > o.approvalsForMe.length ? html`; the oldest ${o.approvalsForMe.length}:` : ':'}</p>
${o.approvalsForMe.length === 0 ? '' : html`<ul>${o.approvalsForMe.map((a) => html`<li><a href="${`/dashboard/journal/${encodeURIComponent(a.documentId)}`}">${a.journalNo}</a>: ${a.journalTotal ?? ''} ${a.currency ?? ''} to ${a.payeeName ?? '–'}</li>`)}</ul>`}
<p><a href="/dashboard/approvals">Decide them</a></p>`
      }</section>
<section class="card"><h2>Reconciliation this month</h2>
<dl class="facts"><dt>Cleared lines</dt><dd>${o.lines.cleared}</dd><dt>Rejected lines</dt><dd>${o.lines.rejected}</dd>
<dt>Pending lines</dt><dd>${o.lines.pending}</dd>
<dt>Waiting over 2 days</dt><dd><a href="/dashboard/reconciliation">${o.lines.lateMore ? 'over ' : ''}${o.lines.late}</a></dd></dl></section>
${admin}
</div>`,
    });
  });
};
