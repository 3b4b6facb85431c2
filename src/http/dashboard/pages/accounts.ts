import type { FastifyPluginAsync } from 'fastify';
import { accountStatements, listAccounts } from '../../../app/accounts/accounts.ts';
import { signedBalance } from '../../../domain/money/signed-balance.ts';
import type { HttpServices } from '../../services.ts';
import { param, when } from '../format.ts';
import { currentCompanyId, dashboardView } from '../guard.ts';
import { type Html, href, html } from '../html.ts';
import { sendDashboardPage } from '../layout.ts';

type Statements = Awaited<ReturnType<typeof accountStatements>>;
type Balance = { amount: string; currency: string; direction?: string; date?: string } | null;

function signed(b: Balance): string | undefined {
  if (!b) return undefined;
  // As GET /accounts/statements reads them: a debit balance is below zero.
  return signedBalance(b);
}

/**
 * The balance chart's figures: each statement's closing balance on its date. The chart element
 * carries them as JSON in an attribute (escaped like any value); web/balance-chart.js draws them
 * with uPlot. The table below holds the same figures, for screen readers and without JavaScript.
 */
function chart(s: Statements): Html {
  const points = s.statements
    .map((st) => ({
      date: (st.closing as Balance)?.date?.slice(0, 10) ?? st.toDate?.slice(0, 10),
      balance: signed(st.closing as Balance),
    }))
    .filter((p): p is { date: string; balance: string } => !!p.date && p.balance !== undefined);
  if (points.length === 0) return html`<p class="muted">No closing balances yet to draw.</p>`;
  const series = JSON.stringify({
    currency: s.account.currency ?? (s.statements[0]?.closing as Balance)?.currency ?? '',
    dates: points.map((p) => p.date),
    balances: points.map((p) => p.balance),
  });
  return html`<figure><figcaption>Closing balance over time</figcaption>
<div class="chart" data-series="${series}" role="img" aria-label="Closing balance over time; the figures are in the table below"></div></figure>`;
}

function statementsTable(s: Statements): Html {
  const rows = s.statements.map(
    (
      st,
    ) => html`<tr><td><a href="${`/dashboard/journal/${encodeURIComponent(st.documentId)}`}">${st.journalNo}</a></td><td>${st.fromDate ?? ''} – ${st.toDate ?? ''}</td>
<td>${st.sequenceNumber ?? ''}</td><td class="num">${signed(st.opening as Balance) ?? ''}</td><td class="num">${signed(st.closing as Balance) ?? ''}</td><td class="num">${st.txCount ?? ''}</td></tr>`,
  );
  const link = (id: string) => html`<a href="${`/dashboard/journal/${encodeURIComponent(id)}`}">${id}</a>`;
  const gaps = s.gaps.map(
    (g) => html`<li>${g.kind}: ${g.reason} (between ${link(g.afterDocumentId)} and ${link(g.beforeDocumentId)})</li>`,
  );
  return html`<h2>Statements</h2>
<table><thead><tr><th scope="col">Journal no</th><th scope="col">Period</th><th scope="col">Sequence</th><th scope="col" class="num">Opening</th><th scope="col" class="num">Closing</th><th scope="col" class="num">Entries</th></tr></thead>
<tbody>${rows}</tbody></table>
<h2>Gaps between statements</h2>${gaps.length === 0 ? html`<p>None: each statement follows the one before.</p>` : html`<ul>${gaps}</ul>`}`;
}

/** Accounts: balances (masked in the list, as GET /accounts), one account's statements, gaps and chart. */
export const accountPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard/accounts', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const companyId = currentCompanyId(view);
    const accounts = await listAccounts(ctx, view.session, { companyId, limit: 100 });
    const chosen = param(request.query, 'account');
    const rows = accounts.items.map(
      (
        a,
      ) => html`<tr><td><a href="${href('/dashboard/accounts', { account: a.id })}">${a.iban ?? JSON.stringify(a.accountOther)}</a></td><td>${a.currency ?? ''}</td>
<td>${a.bankName ?? a.bankKey ?? ''}</td><td>${a.latestBalanceDate ?? ''}</td><td>${when(a.lastReceivedData)}</td></tr>`,
    );
    const detail = chosen ? await accountStatements(ctx, view.session, { companyId, account: chosen }) : undefined;
    const body = html`${
      rows.length === 0
        ? html`<p>No bank accounts yet: they appear with the first statement ingested for them.</p>`
        : html`<table><caption class="muted">Balances are shown per account below (the list masks them, as the API does).</caption><thead><tr><th scope="col">Account</th><th scope="col">Currency</th><th scope="col">Bank</th><th scope="col">Latest balance date</th><th scope="col">Last data</th></tr></thead><tbody>${rows}</tbody></table>`
    }
${
  detail
    ? html`<h2>${detail.account.iban ?? detail.account.id}</h2>
<dl class="facts"><dt>Latest balance</dt><dd>${detail.account.latestBalance ?? '–'} ${detail.account.latestBalanceCurrency ?? ''} ${detail.account.latestBalanceDate ? html`on ${detail.account.latestBalanceDate}` : ''}</dd></dl>
${chart(detail)}${statementsTable(detail)}`
    : ''
}`;
    return sendDashboardPage(reply, view, {
      title: 'Accounts',
      active: 'accounts',
      body,
      ...(detail
        ? {
            scripts: ['/dashboard/assets/uplot.js', '/dashboard/assets/balance-chart.js'],
            styles: ['/dashboard/assets/uplot.css'],
          }
        : {}),
    });
  });
};
