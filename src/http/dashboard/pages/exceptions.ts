import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../../app/errors.ts';
import { listExceptions } from '../../../app/receivables/exceptions.ts';
import { manualMatch } from '../../../app/receivables/manual-match.ts';
import { parseForm } from '../../plugins/form-body.ts';
import type { HttpServices } from '../../services.ts';
import { param } from '../format.ts';
import { currentCompanyId, dashboardView } from '../guard.ts';
import { type Html, href, html } from '../html.ts';
import { csrfField, type DashboardView, type Notice, sendDashboardPage } from '../layout.ts';

type Queue = Awaited<ReturnType<typeof listExceptions>>;
type Item = Queue['items'][number];

const KINDS: Array<[string, string]> = [
  ['unmatched-incoming', 'Credits nothing matched'],
  ['unanswered-outbound', 'Payments the bank never answered'],
  ['ambiguous', 'Credits with several candidates'],
  ['overdue-expected', 'Overdue expected payments'],
];
const kindLabel = (kind: string) => KINDS.find(([k]) => k === kind)?.[1] ?? kind;

/** A subject's field as text: objects by their values that are set (a counterparty's name and IBAN). */
function factText(value: unknown): string {
  if (value === null || value === undefined) return '–';
  if (typeof value === 'object')
    return Object.values(value as Record<string, unknown>)
      .filter((v) => v !== null && v !== undefined)
      .map(String)
      .join(', ');
  return String(value);
}

function subjectFacts(item: Item): Html {
  const facts = Object.entries(item.subject).map(([k, v]) => html`<dt>${k}</dt><dd>${factText(v)}</dd>`);
  return html`<dl class="facts">${facts}<dt>since</dt><dd>${item.since}</dd></dl>`;
}

/**
 * The candidates beside the subject, each with why it did not match; for a credit, check the
 * expected payments it pays; for an overdue expected payment, choose the credit that paid it.
 */
function candidatesTable(item: Item, n: number, pick: 'expected' | 'incoming' | 'entry' | null): Html {
  if (item.candidates.length === 0) return html`<p class="muted">No candidate on the other side.</p>`;
  const rows = item.candidates.map((c, i) => {
    const id = `pick-${n}-${i}`;
    const control =
      pick === 'expected'
        ? html`<input type="checkbox" id="${id}" name="${`expected:${c.ref}`}"><label for="${id}">Match to ${c.ref}</label>`
        : pick === 'incoming'
          ? html`<input type="radio" id="${id}" name="incomingPaymentId" value="${c.ref}" required><label for="${id}">Paid by ${c.ref}</label>`
          : pick === 'entry' && c.entry
            ? html`<input type="radio" id="${id}" name="entry" value="${`${c.entry.documentId}:${c.entry.entryIndex}`}" required><label for="${id}">Paid by ${c.ref}</label>`
            : html`<code>${c.ref}</code>`;
    return html`<tr><td>${control}</td><td class="num">${c.amountDelta}</td><td class="num">${c.daysDelta}</td><td>${c.referenceMatch ? 'yes' : 'no'}</td><td>${c.why}</td></tr>`;
  });
  return html`<table><caption class="muted">Nearest candidates and why each did not match</caption><thead><tr><th scope="col">Candidate</th><th scope="col" class="num">Amount delta</th><th scope="col" class="num">Days</th><th scope="col">Reference agrees</th><th scope="col">Why not</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

function itemCard(view: DashboardView, item: Item, n: number): Html {
  const s = item.subject;
  const incoming = typeof s['incomingPaymentId'] === 'string' ? s['incomingPaymentId'] : null;
  const expected = typeof s['expectedPaymentId'] === 'string' ? s['expectedPaymentId'] : null;
  const line = s['outboundLine'] as { documentId: string; index: number } | undefined;
  // An unanswered line is matched to one of its candidate debits (docs/adr/0076).
  // An overdue debit expected payment is paid by one of its candidate debits (docs/adr/0077).
  const pick = incoming
    ? 'expected'
    : expected
      ? item.candidates.some((c) => c.entry)
        ? 'entry'
        : 'incoming'
      : line && item.candidates.some((c) => c.entry)
        ? 'entry'
        : null;
  const title =
    incoming ??
    expected ??
    `${factText(s['journalNo'])} line ${factText((s['outboundLine'] as { index?: number })?.index)}`;
  const side = html`<div class="side-by-side"><div>${subjectFacts(item)}</div><div>${candidatesTable(item, n, pick)}</div></div>`;
  const heading = html`<h3>${kindLabel(item.kind)}: ${title}</h3>`;
  if (pick === null) {
    const doc = (s['outboundLine'] as { documentId?: string } | undefined)?.documentId;
    return html`<section class="exception" aria-label="${title}">${heading}${side}
${doc ? html`<p><a href="${`/dashboard/journal/${encodeURIComponent(doc)}`}">The payment and its evidence</a>: ask the bank for a status report or a statement.</p>` : ''}</section>`;
  }
  const hidden = incoming
    ? html`<input type="hidden" name="incomingPaymentId" value="${incoming}">`
    : expected
      ? html`<input type="hidden" name="${`expected:${expected}`}" value="on">`
      : html`<input type="hidden" name="outboundLine" value="${`${line!.documentId}:${line!.index}`}">`;
  return html`<section class="exception" aria-label="${title}">${heading}
<form method="post" action="/dashboard/exceptions/match">${csrfField(view)}${hidden}${side}
<label class="reason" for="${`reason-${n}`}">Reason for the match</label><input id="${`reason-${n}`}" name="reason" type="text" required maxlength="500">
<button type="submit" class="primary">Match ${title}</button></form></section>`;
}

/** A form's `documentId:index` pair (the ids hold no colon); a bad one is a validation error. */
function pairOf<K extends 'entryIndex' | 'index'>(value: string | undefined, key: K) {
  const at = value?.lastIndexOf(':') ?? -1;
  const n = at > 0 ? Number(value!.slice(at + 1)) : Number.NaN;
  if (!Number.isInteger(n) || n < 0)
    throw new AppError('validation_failed', `${key === 'index' ? 'outboundLine' : 'entry'}: choose one`);
  return { documentId: value!.slice(0, at), [key]: n } as { documentId: string } & Record<K, number>;
}

async function exceptionsPage(
  ctx: HttpServices['ctx'],
  view: DashboardView,
  query: { kind?: string | undefined; cursor?: string | undefined },
  notices: Notice[] = [],
  status = 200,
) {
  const queue = await listExceptions(ctx, view.session, { companyId: currentCompanyId(view), ...query, limit: 25 });
  const tabs = [
    html`<a href="/dashboard/exceptions"${query.kind === undefined ? html` aria-current="true"` : ''}>all</a> `,
    ...KINDS.map(
      ([k, label]) =>
        html`<a href="${href('/dashboard/exceptions', { kind: k })}"${k === query.kind ? html` aria-current="true"` : ''}>${label}</a> `,
    ),
  ];
  const next = queue.nextCursor
    ? html`<a rel="next" href="${href('/dashboard/exceptions', { kind: query.kind, cursor: queue.nextCursor })}">Next page</a>`
    : '';
  return {
    title: 'Exceptions',
    active: 'exceptions',
    notices,
    status,
    body: html`<p class="pager">${tabs}</p>
${queue.items.length === 0 ? html`<p>Nothing needs a person.</p>` : queue.items.map((item, n) => itemCard(view, item, n))}
<p class="pager">${next}</p>`,
  };
}

/**
 * Exceptions: what no rule could match (GET /reconciliation/exceptions), each subject beside its
 * nearest candidates with why each did not match, and a match form with a reason that goes through
 * the manual-match use case (POST /reconciliation/matches: an admin or approver; the audit names them).
 */
export const exceptionsPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard/exceptions', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const query = { kind: param(request.query, 'kind'), cursor: param(request.query, 'cursor') };
    return sendDashboardPage(reply, view, await exceptionsPage(ctx, view, query));
  });

  app.post('/dashboard/exceptions/match', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const form = parseForm(request.body);
    const params: Record<string, string> = form.ok ? form.params : {};
    const expectedPaymentIds = Object.keys(params)
      .filter((k) => k.startsWith('expected:') && params[k] === 'on')
      .map((k) => k.slice('expected:'.length));
    try {
      const done = params['outboundLine']
        ? await manualMatch(ctx, view.session, {
            companyId: currentCompanyId(view),
            entry: pairOf(params['entry'], 'entryIndex'),
            outboundLines: [pairOf(params['outboundLine'], 'index')].map((p) => ({
              documentId: p.documentId,
              index: p.index,
            })),
            reason: params['reason'] ?? '',
          })
        : params['entry']
          ? await manualMatch(ctx, view.session, {
              companyId: currentCompanyId(view),
              entry: pairOf(params['entry'], 'entryIndex'),
              expectedPaymentIds,
              reason: params['reason'] ?? '',
            })
          : await manualMatch(ctx, view.session, {
              companyId: currentCompanyId(view),
              incomingPaymentId: params['incomingPaymentId'] || undefined,
              expectedPaymentIds,
              reason: params['reason'] ?? '',
            });
      const text = `Matched ${done.matches.map((m) => ('outboundLines' in m ? `entry ${m.entry.documentId} #${m.entry.entryIndex} to ${m.outboundLines.map((l) => `${l.documentId} line ${l.index}`).join(', ')}` : `${'entry' in m ? `entry ${m.entry.documentId} #${m.entry.entryIndex}` : m.incomingPaymentId} to ${m.expectedPaymentId}`) + ` (${m.amount})`).join(', ')}.`;
      return sendDashboardPage(reply, view, await exceptionsPage(ctx, view, {}, [{ kind: 'ok', text }]));
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const notice: Notice = { kind: 'error', text: error.message };
      return sendDashboardPage(reply, view, await exceptionsPage(ctx, view, {}, [notice], error.status));
    }
  });
};
