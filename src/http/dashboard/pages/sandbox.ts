import type { FastifyPluginAsync } from 'fastify';
import { getDocumentPayments } from '../../../app/journal/read-document.ts';
import { sendSandboxFirstPayment } from '../../../app/sandbox/send-first-payment.ts';
import type { HttpServices } from '../../services.ts';
import { badge, param } from '../format.ts';
import { currentCompanyId, dashboardView } from '../guard.ts';
import { type Html, href, html } from '../html.ts';
import { csrfField, type DashboardView, sendDashboardPage } from '../layout.ts';

type Progress = Awaited<ReturnType<typeof getDocumentPayments>>;

/** Where the payment is on its way: journaled and converted, delivered, executed, every line cleared. */
function steps(p: Progress): { html: Html; done: boolean } {
  const sent = ['sent', 'executed', 'rejected'].includes(p.status);
  const answered = p.status === 'executed' || p.status === 'rejected';
  const settled = p.payments.every((l) => l.recon.state === 'cleared' || l.recon.state === 'rejected');
  const step = (done: boolean, text: string) => html`<li>${done ? '✔ ' : '… '}${text}</li>`;
  const list = html`<ol class="steps">
${step(true, `Journaled as ${p.journalNo} and converted to pain.001`)}
${step(p.status !== 'pending-approval', p.status === 'pending-approval' ? 'Waiting for approval' : 'No approval needed, or approved')}
${step(sent, 'Delivered to the demo bank')}
${step(answered, `The bank answered: ${p.status}`)}
${step(settled, 'Every line reconciled against the bank statement')}
</ol>
<p>Status ${badge(p.status)}; lines ${p.payments.map((l) => badge(l.recon.state))}</p>
<p><a href="${`/dashboard/journal/${encodeURIComponent(p.documentId)}`}">Open ${p.journalNo} with its evidence</a></p>`;
  const waiting =
    p.status === 'pending-approval'
      ? html`<p>It waits for approval under the company's policy: an approver decides it on the <a href="/dashboard/approvals">Approvals</a> page (the maker cannot approve their own payment). Reload this page afterwards.</p>`
      : '';
  // Nothing to watch while it waits for a person, or once it is done.
  const still = p.status === 'pending-approval' || p.status === 'cancelled' || (answered && settled);
  return { html: html`${list}${waiting}`, done: still };
}

async function page(ctx: HttpServices['ctx'], view: DashboardView, documentId: string | undefined) {
  const progress = documentId
    ? await getDocumentPayments(ctx, view.session, currentCompanyId(view), documentId)
    : undefined;
  const shown = progress ? steps(progress) : undefined;
  const body = html`<p>This sandbox has a demo bank that answers like a real one: about ${Math.round(ctx.config.demoBankDelayMs / 1000)} s after a payment is delivered it sends a pain.002 status report and a camt.053 statement, which go through the same parsers and reconciliation as any bank file.</p>
<form method="post" action="/dashboard/sandbox/first-payment">${csrfField(view)}
<button type="submit" class="primary">Send the first payment (125.50 EUR to Example Supplier Oy)</button></form>
${shown ? html`<h2>Your payment</h2>${shown.html}${shown.done ? '' : html`<p class="muted">This page reloads every 2 seconds until the bank has answered.</p>`}` : ''}`;
  return { body, refresh: shown && !shown.done ? 2 : undefined };
}

/** In a sandbox: the button that sends the first payment, and its way to executed and cleared. */
export const sandboxPages: FastifyPluginAsync<HttpServices> = async (app, { ctx }) => {
  app.get('/dashboard/sandbox', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const shown = await page(ctx, view, param(request.query, 'document'));
    return sendDashboardPage(reply, view, {
      title: 'Sandbox',
      active: 'sandbox',
      body: shown.body,
      ...(shown.refresh ? { refreshSeconds: shown.refresh } : {}),
    });
  });

  app.post('/dashboard/sandbox/first-payment', { schema: { hide: true } }, async (request, reply) => {
    const view = await dashboardView(ctx, request);
    const sent = await sendSandboxFirstPayment(ctx, view.session, currentCompanyId(view));
    return reply.redirect(href('/dashboard/sandbox', { document: sent.documentId }), 303);
  });
};
