import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../../app/errors.ts';
import { type DocumentsQuery, listDocuments } from '../../../app/journal/read-documents.ts';
import { INBOUND_STATUSES, OUTBOUND_STATUSES } from '../../../domain/lifecycle/index.ts';
import type { HttpServices } from '../../services.ts';
import { badge, param, totals, when } from '../format.ts';
import { currentCompanyId, dashboardView } from '../guard.ts';
import { type Html, href, html } from '../html.ts';
import { type Notice, sendDashboardPage } from '../layout.ts';

const PAGE_SIZE = 50;
const TYPES = ['pain.001', 'pain.002', 'camt.052', 'camt.053', 'camt.054', 'mt940'];
/** The filters of GET /journal/documents, under the same names. */
const FILTERS = ['direction', 'type', 'status', 'q', 'amountMin', 'amountMax', 'dateFrom', 'dateTo'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

function select(name: string, label: string, current: string | undefined, values: readonly string[]): Html {
  const options = values.map((v) => html`<option value="${v}"${v === current ? html` selected` : ''}>${v}</option>`);
  return html`<label>${label}<select name="${name}"><option value="">any</option>${options}</select></label>`;
}

function input(name: string, label: string, current: string | undefined, type = 'text'): Html {
  return html`<label>${label}<input name="${name}" type="${type}" value="${current ?? ''}"></label>`;
}

function filterForm(f: Filters): Html {
  return html`<form method="get" action="/dashboard/journal" class="filters" role="search" aria-label="Journal filters">
${input('q', 'Text (payee, reference, journal no)', f.q, 'search')}
${select('direction', 'Direction', f.direction, ['outbound', 'inbound'])}
${select('type', 'Type', f.type, TYPES)}
${select('status', 'Status', f.status, [...OUTBOUND_STATUSES, ...INBOUND_STATUSES])}
${input('amountMin', 'Amount from', f.amountMin)}
${input('amountMax', 'Amount to', f.amountMax)}
${input('dateFrom', 'From date', f.dateFrom, 'date')}
${input('dateTo', 'To date', f.dateTo, 'date')}
<button type="submit" class="primary">Filter</button>
<a href="/dashboard/journal">Clear</a>
</form>`;
}

type Page = Awaited<ReturnType<typeof listDocuments>>;

function table(page: Page): Html {
  if (page.items.length === 0) return html`<p>No documents match.</p>`;
  const rows = page.items.map(
    (d) => html`<tr>
<td><a href="${`/dashboard/journal/${encodeURIComponent(d.id)}`}">${d.journalNo}</a></td>
<td>${when(d.createdAt)}</td><td>${d.direction}</td><td>${d.type}</td>
<td>${d.summary}</td><td>${badge(d.status)}</td><td class="num">${totals(d.totals)}</td>
<td>${d.bankName ?? ''}${d.environment === 'test' ? html` <span class="muted">(test)</span>` : ''}</td></tr>`,
  );
  return html`<table><caption class="muted">${page.totalExact ? '' : 'about '}${page.total} documents</caption>
<thead><tr><th scope="col">Journal no</th><th scope="col">Created</th><th scope="col">Direction</th><th scope="col">Type</th>
<th scope="col">Summary</th><th scope="col">Status</th><th scope="col" class="num">Total</th><th scope="col">Bank</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

/**
 * The journal: GET /journal/documents's filters and keyset pages, through its use case
 * (listDocuments), so the page shows exactly what the API answers.
 */
export const journalPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard/journal', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const companyId = currentCompanyId(view);
    const filters: Filters = {};
    for (const name of FILTERS) {
      const value = param(request.query, name);
      if (value !== undefined) filters[name] = value.slice(0, 200);
    }
    const cursor = param(request.query, 'cursor');
    const query: DocumentsQuery = { companyId, ...filters, limit: PAGE_SIZE, cursor };
    const notices: Notice[] = [];
    let body: Html;
    try {
      const page = await listDocuments(ctx, view.session, query);
      const next = page.nextCursor
        ? html`<a href="${href('/dashboard/journal', { ...filters, cursor: page.nextCursor })}" rel="next">Next page</a>`
        : '';
      const first = cursor ? html`<a href="${href('/dashboard/journal', filters)}">First page</a>` : '';
      body = html`${table(page)}<p class="pager">${first} ${next}</p>`;
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 400) throw error;
      notices.push({ kind: 'error', text: error.message });
      body = html``;
    }
    return sendDashboardPage(reply, view, {
      title: 'Journal',
      active: 'journal',
      notices,
      status: notices.length > 0 ? 400 : 200,
      body: html`${filterForm(filters)}${body}`,
    });
  });
};
