import type { FastifyPluginAsync } from 'fastify';
import { dashboardReconciliation } from '../../../app/dashboard/reconciliation.ts';
import type { HttpServices } from '../../services.ts';
import { badge, param, totals, when } from '../format.ts';
import { currentCompanyId, dashboardView } from '../guard.ts';
import { type Html, href, html } from '../html.ts';
import { sendDashboardPage } from '../layout.ts';
import { reasonInWords } from './document.ts';

const docLink = (id: string, text: string) =>
  html`<a href="${`/dashboard/journal/${encodeURIComponent(id)}`}">${text}</a>`;

type Recon = Awaited<ReturnType<typeof dashboardReconciliation>>;

function lateTable(lines: Recon['late']): Html {
  if (lines.length === 0) return html`<p>No line is waiting longer than the usual answer time.</p>`;
  return html`<table><thead><tr><th scope="col">Payment</th><th scope="col">Payee</th><th scope="col" class="num">Amount</th><th scope="col">End-to-end id</th><th scope="col" class="num">Waiting (days)</th></tr></thead>
<tbody>${lines.map((l) => html`<tr><td>${docLink(l.documentId, `${l.journalNo} #${l.lineIndex + 1}`)}</td><td>${l.payeeName ?? ''}</td><td class="num">${l.amount} ${l.currency}</td><td><code>${l.endToEndId ?? ''}</code></td><td class="num">${l.ageDays}</td></tr>`)}</tbody></table>`;
}

function rejectedTable(lines: Recon['rejected']): Html {
  if (lines.length === 0) return html`<p>No rejected lines in the last 90 days.</p>`;
  return html`<table><thead><tr><th scope="col">Payment</th><th scope="col">Payee</th><th scope="col" class="num">Amount</th><th scope="col">Reason</th><th scope="col">When</th></tr></thead>
<tbody>${lines.map((l) => html`<tr><td>${docLink(l.documentId, `${l.journalNo} #${l.lineIndex + 1}`)}</td><td>${l.payeeName ?? ''}</td><td class="num">${l.amount} ${l.currency}</td><td>${reasonInWords(l.evidence?.['reason'])}</td><td>${when(l.updatedAt.toISOString())}</td></tr>`)}</tbody></table>`;
}

function documentsTable(page: Recon['documents'], cursor: string | undefined): Html {
  const rows = page.items.map(
    (d) =>
      html`<tr><td>${docLink(d.documentId, d.journalNo)}</td><td>${d.summary}</td><td class="num">${totals(d.totals)}</td><td>${badge(d.status)}</td><td>${badge(d.state)}</td></tr>`,
  );
  const next = page.nextCursor
    ? html`<a rel="next" href="${href('/dashboard/reconciliation', { cursor: page.nextCursor })}">Next page</a>`
    : '';
  const first = cursor ? html`<a href="/dashboard/reconciliation">First page</a>` : '';
  return html`<table><thead><tr><th scope="col">Payment</th><th scope="col">Summary</th><th scope="col" class="num">Total</th><th scope="col">Status</th><th scope="col">Lines</th></tr></thead>
<tbody>${rows}</tbody></table><p class="pager">${first} ${next}</p>`;
}

/** Reconciliation: late lines by age, rejected lines with the reason in words, and every payment's state. */
export const reconciliationPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard/reconciliation', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const cursor = param(request.query, 'cursor');
    const recon = await dashboardReconciliation(ctx, view.session, currentCompanyId(view), cursor);
    return sendDashboardPage(reply, view, {
      title: 'Reconciliation',
      active: 'reconciliation',
      body: html`<h2>Pending longer than the usual answer time (2 days)</h2>${lateTable(recon.late)}
<h2>Rejected lines</h2>${rejectedTable(recon.rejected)}
<h2>Payments and their lines</h2>${documentsTable(recon.documents, cursor)}`,
    });
  });
};
