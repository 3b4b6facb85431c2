import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../../app/errors.ts';
import { cancelDocument } from '../../../app/journal/cancel.ts';
import { listEvents } from '../../../app/journal/events.ts';
import { getDocumentFile, type getDocumentPayments, readDocumentWhole } from '../../../app/journal/read-document.ts';
import { REASON_DESCRIPTIONS } from '../../../domain/inbound/pain002/reason-codes.ts';
import type { HttpServices } from '../../services.ts';
import { badge, totals, when } from '../format.ts';
import { currentCompanyId, dashboardView } from '../guard.ts';
import { type Html, html } from '../html.ts';
import { csrfField, type DashboardView, type Notice, sendDashboardPage } from '../layout.ts';
import { approvalSummary } from './approvals.ts';

/** The XML shown inline is cut here (the download has it whole). */
const XML_SHOWN = 200_000;
/** The timeline reads this many of the document's audit events. */
const TIMELINE_LIMIT = 200;

type Payments = Awaited<ReturnType<typeof getDocumentPayments>>;
type Line = Payments['payments'][number];

const documentPath = (id: string) => `/dashboard/journal/${encodeURIComponent(id)}`;

/** A reason code with its meaning in words (ISO ExternalStatusReason1Code), unknown codes as they came. */
export function reasonInWords(code: unknown): Html {
  if (typeof code !== 'string' || code === '') return html``;
  const words = REASON_DESCRIPTIONS[code];
  return words ? html`<abbr title="${words}">${code}</abbr>: ${words}` : html`${code}`;
}

/** Which file, which entry, which rule: the evidence a line's reconciliation state rests on. */
function evidence(e: Record<string, unknown> | null): Html {
  if (!e) return html`<span class="muted">no bank answer yet</span>`;
  const text = (key: string) => (typeof e[key] === 'string' || typeof e[key] === 'number' ? String(e[key]) : undefined);
  const file = text('documentId');
  const facts: Html[] = [];
  const returned = text('rule') === 'return';
  // A return (docs/adr/0070): said first, with its reason in words, and what the line had before.
  if (returned)
    facts.push(
      html`<div class="returned"><strong>Returned</strong>${text('reason') && text('reason') !== 'reversal' ? html`: ${reasonInWords(text('reason'))}` : ' (no reason given)'}${text('matchedBy') ? html` <span class="muted">(matched by ${text('matchedBy')})</span>` : ''}</div>`,
    );
  if (text('summary')) facts.push(html`<div>${text('summary')}</div>`);
  if (file)
    facts.push(html`<div>File: <a href="${documentPath(file)}">${text('source') ?? 'bank file'} ${file}</a></div>`);
  const entry = [
    text('date'),
    text('amount') && `${text('amount')} ${text('currency') ?? ''}`,
    text('bankRef') && `ref ${text('bankRef')}`,
  ]
    .filter(Boolean)
    .join(' · ');
  if (entry) facts.push(html`<div>Entry: ${entry}</div>`);
  if (text('rule')) facts.push(html`<div>Rule: ${text('rule')}</div>`);
  if (text('reason') && !returned) facts.push(html`<div>Reason: ${reasonInWords(text('reason'))}</div>`);
  if (text('addtlInf')) facts.push(html`<div class="muted">${text('addtlInf')}</div>`);
  const before = e['before'];
  if (
    returned &&
    typeof before === 'object' &&
    before !== null &&
    typeof (before as Record<string, unknown>)['summary'] === 'string'
  )
    facts.push(
      html`<div class="muted">Before the return: ${String((before as Record<string, unknown>)['summary'])}</div>`,
    );
  return html`${facts}`;
}

function lineRow(line: Line): Html {
  return html`<tr><td>${line.index + 1}</td><td>${line.payee ?? ''}<br><span class="muted">${line.payeeIban ?? ''}</span></td>
<td class="num">${line.amount} ${line.currency}</td><td><code>${line.endToEndId ?? ''}</code></td>
<td>${badge(line.recon.state)}</td><td>${evidence(line.recon.evidence as Record<string, unknown> | null)}</td></tr>`;
}

function linesTable(payments: Payments): Html {
  return html`<h2>Payment lines and their evidence</h2>
<p>${payments.recon.state ? html`Reconciliation: ${badge(String(payments.recon.state))}` : ''}</p>
<table><thead><tr><th scope="col">#</th><th scope="col">Payee</th><th scope="col" class="num">Amount</th><th scope="col">End-to-end id</th>
<th scope="col">State</th><th scope="col">Evidence</th></tr></thead>
<tbody>${payments.payments.map(lineRow)}</tbody></table>`;
}

type Entry = {
  bookingDate?: string | null;
  direction?: string;
  amount?: string | null;
  entryAmount?: string;
  currency?: string;
  counterpartyName?: string | null;
  counterpartyIban?: string | null;
  remittance?: string | null;
  endToEndId?: string | null;
  bankRef?: string | null;
  status?: string;
};

/** An inbound statement's entries (the normalised statement GET /journal/documents/{id} returns). */
function statementEntries(payload: unknown): Html {
  const transactions = (payload as { transactions?: unknown } | null)?.transactions;
  if (!Array.isArray(transactions)) return html``;
  const rows = (transactions as Entry[]).slice(0, 500).map(
    (
      e,
    ) => html`<tr><td>${e.bookingDate ?? ''}</td><td>${e.direction ?? ''}</td><td class="num">${e.amount ?? e.entryAmount ?? ''} ${e.currency ?? ''}</td>
<td>${e.counterpartyName ?? ''}<br><span class="muted">${e.counterpartyIban ?? ''}</span></td><td>${e.remittance ?? ''}</td><td><code>${e.endToEndId ?? ''}</code></td><td>${e.bankRef ?? ''}</td><td>${e.status ?? ''}</td></tr>`,
  );
  return html`<h2>Entries</h2>
<table><thead><tr><th scope="col">Booked</th><th scope="col">Direction</th><th scope="col" class="num">Amount</th><th scope="col">Counterparty</th><th scope="col">Remittance</th><th scope="col">End-to-end id</th><th scope="col">Bank ref</th><th scope="col">Status</th></tr></thead>
<tbody>${rows}</tbody></table>${transactions.length > 500 ? html`<p class="muted">The first 500 of ${transactions.length} entries.</p>` : ''}`;
}

type Timeline = Awaited<ReturnType<typeof listEvents>>['items'];

function timeline(events: Timeline): Html {
  if (events.length === 0) return html`<p class="muted">No events recorded for this document.</p>`;
  const items = [...events]
    .reverse()
    .map((e) => html`<li>${when(e.createdAt)} <code>${e.type}</code>: ${e.message}</li>`);
  return html`<ol class="timeline">${items}</ol>`;
}

function cancellable(doc: { direction: string; status: string; delivery: { status: string | null } | null }): boolean {
  if (doc.direction !== 'outbound') return false;
  if (doc.status !== 'converted' && doc.status !== 'pending-approval') return false;
  return doc.delivery === null || doc.delivery.status === null || doc.delivery.status === 'queued';
}

async function documentPage(ctx: HttpServices['ctx'], view: DashboardView, id: string, notices: Notice[] = []) {
  const companyId = currentCompanyId(view);
  const [whole, events] = await Promise.all([
    readDocumentWhole(ctx, view.session, companyId, id),
    listEvents(ctx, view.session, { companyId, documentId: id, limit: TIMELINE_LIMIT }),
  ]);
  const { document: doc, payments, file } = whole;
  const outbound = doc.direction === 'outbound';
  const cancel =
    view.workspace.admin && cancellable(doc)
      ? html`<form method="post" action="${`${documentPath(doc.id)}/cancel`}" class="inline">${csrfField(view)}
<button type="submit" class="danger">Cancel this payment</button></form>`
      : '';
  const xml = file
    ? html`<h2>Payment file</h2><p><a href="${`${documentPath(doc.id)}/file`}" download>Download ${file.filename}</a></p>
<pre class="xml" tabindex="0" aria-label="pain.001 XML">${file.xml.slice(0, XML_SHOWN)}</pre>
${file.xml.length > XML_SHOWN ? html`<p class="muted">The file is longer than shown; download it to read it whole.</p>` : ''}`
    : '';
  const body = html`<dl class="facts">
<dt>Status</dt><dd>${badge(doc.status)}</dd>
<dt>Direction</dt><dd>${doc.direction} ${doc.type} (${doc.sourceFormat ?? ''})</dd>
<dt>Summary</dt><dd>${doc.summary}</dd>
<dt>Total</dt><dd>${totals(doc.totals)} in ${doc.transactionCount} transaction(s)</dd>
<dt>Bank</dt><dd>${doc.bankName ?? '–'} (${doc.environment})</dd>
<dt>Message id</dt><dd><code>${doc.messageId ?? '–'}</code></dd>
<dt>Delivery</dt><dd>${doc.deliveryMode ?? '–'}${doc.delivery ? html`, ${badge(doc.delivery.status)}` : ''}</dd>
<dt>Created</dt><dd>${when(doc.createdAt)}</dd></dl>
${cancel}
${payments?.approval ? approvalSummary(view, payments.approval) : ''}
${payments ? linesTable(payments) : ''}
${outbound ? '' : statementEntries(doc.payload)}
<h2>Status timeline</h2>
${timeline(events.items)}
${xml}`;
  return { title: `${doc.journalNo}: ${doc.summary}`, body, notices };
}

/**
 * A document: metadata, its status timeline from the audit trail, each payment line's reconciliation
 * state with its evidence, the pain.001 XML (escaped; downloadable) and cancel where the lifecycle
 * allows it. Every read is the API's use case (GET /journal/documents/{id}, /payments, /file, /journal/events).
 */
export const documentPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard/journal/:id', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const page = await documentPage(ctx, view, (request.params as { id: string }).id);
    return sendDashboardPage(reply, view, { ...page, active: 'journal' });
  });

  app.get('/dashboard/journal/:id/file', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const id = (request.params as { id: string }).id;
    const file = await getDocumentFile(ctx, view.session, currentCompanyId(view), id);
    return reply
      .type('application/xml; charset=utf-8')
      .header('content-disposition', `attachment; filename="${file.filename.replace(/[^\w.-]/g, '_')}"`)
      .header('cache-control', 'no-store')
      .send(file.xml);
  });

  app.post('/dashboard/journal/:id/cancel', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const id = (request.params as { id: string }).id;
    const notices: Notice[] = [];
    try {
      await cancelDocument(ctx, view.session, { companyId: currentCompanyId(view), id });
      notices.push({ kind: 'ok', text: 'The payment was cancelled.' });
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      notices.push({ kind: 'error', text: error.message });
    }
    const page = await documentPage(ctx, view, id, notices);
    return sendDashboardPage(reply, view, { ...page, active: 'journal' });
  });
};
