import type { FastifyPluginAsync } from 'fastify';
import { dashboardReceivables } from '../../../app/dashboard/receivables.ts';
import type { HttpServices } from '../../services.ts';
import { dayChart } from '../day-chart.ts';
import { badge } from '../format.ts';
import { currentCompanyId, dashboardView } from '../guard.ts';
import { type Html, html } from '../html.ts';
import { sendDashboardPage } from '../layout.ts';

type Receivables = Awaited<ReturnType<typeof dashboardReceivables>>;

function expectedTable(list: Receivables['expected']): Html {
  if (list.length === 0)
    return html`<p>No expected payments yet: create them with POST /expected-payments, and the credits of your statements are matched to them.</p>`;
  const rows = list.map((e) => {
    const amount = e.amount ?? `${e.amountMin} – ${e.amountMax}`;
    const how = e.matches.map((m) => `${m.rule}${m.manual ? ' (manual)' : ''}`).join(', ');
    return html`<tr><td>${badge(e.status)}</td><td><code>${e.id}</code></td><td class="num">${amount} ${e.currency}</td>
<td class="num">${e.matchedAmount}</td><td class="num">${e.openAmount}</td><td>${e.dateFrom} – ${e.dateTo}</td>
<td>${e.reference?.value ?? ''}</td><td>${e.counterparty.name ?? e.counterparty.iban ?? ''}</td><td>${how || '–'}</td></tr>`;
  });
  return html`<table><caption class="muted">Overdue first, then by the end of their window.</caption><thead><tr><th scope="col">Status</th><th scope="col">Expected payment</th><th scope="col" class="num">Expected</th><th scope="col" class="num">Received</th><th scope="col" class="num">Open</th><th scope="col">Window</th><th scope="col">Reference</th><th scope="col">Counterparty</th><th scope="col">Matched by</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

function charts(r: Receivables): Html {
  if (r.chart.series.length === 0) return html`<p class="muted">Nothing expected or received in these days.</p>`;
  return html`${r.chart.series.map((s) =>
    dayChart({
      id: `receivables-${s.currency}`,
      title: `Expected (by the end of the window) and received (by booking date) per day, ${s.currency}`,
      currency: s.currency,
      days: r.chart.days,
      today: r.today,
      series: [
        { label: 'expected', className: 'bar-a', values: s.expected },
        { label: 'received', className: 'bar-b', values: s.received },
      ],
    }),
  )}`;
}

/** Receivables: expected payments against what was received (overdue first) and the amounts per day. */
export const receivablesPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard/receivables', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const r = await dashboardReceivables(ctx, view.session, currentCompanyId(view));
    return sendDashboardPage(reply, view, {
      title: 'Receivables',
      active: 'receivables',
      body: html`<h2>Amounts per day</h2>${charts(r)}
<h2>Expected payments</h2>${expectedTable(r.expected)}
<p><a href="/dashboard/exceptions">What needs a person: the exceptions queue</a></p>`,
    });
  });
};
