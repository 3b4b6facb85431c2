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

function entriesTable(page: Recon['unmatched'], cursor: string | undefined, entriesCursor: string | undefined): Html {
  if (page.items.length === 0) {
    return html`<p>${entriesCursor ? 'No more unmatched entries.' : 'Every booked debit and return of your statements matched a payment.'}</p>`;
  }
  const rows = page.items.map(
    (e) =>
      html`<tr><td>${e.bookingDate ?? '–'}</td><td>${e.reversal ? 'return' : e.direction}</td><td class="num">${e.amount} ${e.currency}</td>
<td>${e.counterpartyName ?? ''}${e.counterpartyIban ? html`<br><span class="muted">${e.counterpartyIban}</span>` : ''}</td>
<td>${e.bankRef ? html`<div>ref ${e.bankRef}</div>` : ''}${e.endToEndId ? html`<div>end-to-end <code>${e.endToEndId}</code></div>` : ''}${e.reference ? html`<div>batch ${e.reference}</div>` : ''}${e.remittance ? html`<div class="muted">${e.remittance}</div>` : ''}${e.note ? html`<div>${e.note}</div>` : ''}</td>
<td>${docLink(e.documentId, e.journalNo)}</td></tr>`,
  );
  const next = page.nextCursor
    ? html`<a rel="next" href="${href('/dashboard/reconciliation', { cursor, entries: page.nextCursor })}#unmatched">Older entries</a>`
    : '';
  const first = entriesCursor
    ? html`<a href="${href('/dashboard/reconciliation', { cursor })}#unmatched">Newest entries</a>`
    : '';
  return html`<table><thead><tr><th scope="col">Booked</th><th scope="col">Kind</th><th scope="col" class="num">Amount</th><th scope="col">Counterparty</th><th scope="col">References</th><th scope="col">Statement</th></tr></thead>
<tbody>${rows}</tbody></table><p class="pager">${first} ${next}</p>`;
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

/**
 * Reconciliation: late lines by age, rejected lines with the reason in words, unmatched statement
 * entries (paged by `entries`), and every payment's state (paged by `cursor`).
 */
export const reconciliationPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard/reconciliation', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const cursor = param(request.query, 'cursor');
    const entries = param(request.query, 'entries');
    const recon = await dashboardReconciliation(ctx, view.session, currentCompanyId(view), cursor, entries);
    return sendDashboardPage(reply, view, {
      title: 'Reconciliation',
      active: 'reconciliation',
      body: html`<h2>Pending longer than the usual answer time (2 days)</h2>${lateTable(recon.late)}
<h2>Rejected lines</h2>${rejectedTable(recon.rejected)}
<h2 id="unmatched">Unmatched statement entries (${recon.unmatched.total})</h2>
<p class="muted">Booked debits and returns on your statements that matched no payment line: money that left the account outside this service, or a payment whose references the bank did not carry.</p>
${entriesTable(recon.unmatched, cursor, entries)}
<h2>Payments and their lines</h2>${documentsTable(recon.documents, cursor)}`,
    });
  });
};
