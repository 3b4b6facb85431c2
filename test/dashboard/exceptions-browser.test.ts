/**
 * The Exceptions queue journey in real Chromium (playwright-core driving Debian's chromium; docs/adr/
 * 0075), against the service on a real port: a credit no rule matched appears in the queue beside its
 * nearest expected payment and why it did not match; a person ticks the candidate, gives a reason and
 * matches it; the credit leaves the queue, the Receivables page shows the expected payment received,
 * and the audit trail names the person. axe-core finds nothing serious on either page. The same for
 * a payment the bank never answered (docs/adr/0076, 0079): a person chooses the statement debit that
 * paid it and a reason; the document page shows the line cleared by rule manual and the run executed;
 * undone (through the API: the dashboard has no unmatch), the run is sent and the line queued again.
 * Skipped with the reason when chromium is not installed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { manualClock } from '../../src/platform/clock.ts';
import { freePort } from '../../src/platform/free-port.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { credits, expect, incoming, ingest, ingestDemo, type Sandbox } from '../receivables/support.ts';
import { chromiumMissing, launchChromium, seriousViolations } from '../support/chromium.ts';
import { deliverNow } from '../support/deliver.ts';
import { statementWith } from '../support/statement-with.ts';

let t: TestApp;
let base: string;
let chromium: Browser;
let db: pg.Client;
// The service's clock: the service's time, moved on to close a payment's answer window.
const clock = manualClock(new Date());

describe('the Exceptions queue in Chromium', { skip: chromiumMissing }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({ clock, env: { PUBLIC_BASE_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
    chromium = await launchChromium();
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  after(async () => {
    await db?.end();
    await chromium?.close();
    await t?.close();
  });

  test('an unmatched credit appears, a person matches it with a reason, it leaves the queue, the audit names them', async () => {
    const s = await provisionAndLogin(t);
    const e = await expect(t, s, { amount: '120.00', remittanceContains: 'PO-4242' });
    await ingest(t, s, credits('BROWSER-EXC', [{ amount: '120.00', ref: 'BR-1', text: 'order 4242 thank you' }]));
    const credit = (await incoming(t, s)).find((i) => i.amount === '120.00')!;
    assert.equal(credit.status, 'unmatched');

    const context = await chromium.newContext({ baseURL: base });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (x) => errors.push(x.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto('/dashboard');
    await page.getByLabel('Email').fill(s.dashboardLogin.email);
    await page.getByLabel('Password').fill(s.dashboardLogin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    await page.getByRole('link', { name: 'Exceptions' }).click();

    const item = page.getByRole('region', { name: credit.id });
    await item.getByRole('heading', { name: `Credits nothing matched: ${credit.id}` }).waitFor();
    // The subject and its candidate side by side, with why the rules did not take it.
    assert.match(await item.locator('dl.facts').innerText(), /order 4242 thank you/);
    const candidate = item.locator('tbody tr').first();
    assert.match(await candidate.innerText(), new RegExp(`Match to ${e.id}`));
    assert.match(await candidate.innerText(), /"PO-4242" is not in the remittance/);
    assert.deepEqual(await seriousViolations(page), [], '/dashboard/exceptions');

    await item.getByLabel(`Match to ${e.id}`).check();
    await item.getByLabel('Reason for the match').fill('order number written without its PO- prefix');
    await item.getByRole('button', { name: `Match ${credit.id}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Matched ${credit.id} to ${e.id} (120.00)` })
      .waitFor();
    assert.equal(await page.getByRole('region', { name: credit.id }).count(), 0, 'the credit left the queue');

    await page.getByRole('link', { name: 'Receivables' }).click();
    await page.getByRole('heading', { name: 'Expected payments' }).waitFor();
    const row = page.locator('tbody tr', { hasText: e.id });
    assert.match(await row.innerText(), /reconciled[\s\S]*120\.00 EUR\s+120\.00\s+0\.00[\s\S]*manual/);
    assert.equal(await page.locator('svg#receivables-EUR').count(), 1);
    assert.deepEqual(await seriousViolations(page), [], '/dashboard/receivables');
    assert.deepEqual(errors, []);
    await context.close();

    const audit = await db.query(
      `SELECT u.email, a.message FROM activity_events a JOIN users u ON u.id = a.actor_user_id
        WHERE a.company_id = $1 AND a.type = 'reconciliation.manual_match'`,
      [s.companyId],
    );
    assert.equal(audit.rows.length, 1);
    assert.equal(audit.rows[0].email, s.dashboardLogin.email);
    assert.match(audit.rows[0].message, new RegExp(`matched ${credit.id} to ${e.id}: order number written`));
  });

  test('an unanswered payment: a person chooses the debit that paid it; the line is cleared (manual), the run executed', async () => {
    const s = await provisionAndLogin(t);
    const { documentId, journalNo } = await submitOne(s, 'BROWSER-OUT-1', 'BRW-OUT-1', '30.00');
    const status = async () =>
      (await db.query(`SELECT status FROM journal_documents WHERE id = $1`, [documentId])).rows[0].status;
    assert.equal(await status(), 'sent');
    clock.advance(46 * 86_400_000);
    // The bank booked it under its own reference, with no end-to-end id: no rule takes it.
    const statement = await ingestDemo(
      t,
      s,
      statementWith('BROWSER-OUT-STMT', 1, [
        {
          amount: '30.00',
          direction: 'DBIT',
          iban: PAYEE,
          ref: 'BRW-B-1',
          day: clock.now().toISOString().slice(0, 10),
        },
      ]),
    );
    const entryId = (
      await db.query(`SELECT id FROM unmatched_entries WHERE document_id = $1 AND entry_index = 0`, [statement])
    ).rows[0].id as number;

    const context = await chromium.newContext({ baseURL: base });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (x) => errors.push(x.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto('/dashboard');
    await page.getByLabel('Email').fill(s.dashboardLogin.email);
    await page.getByLabel('Password').fill(s.dashboardLogin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    await page.getByRole('link', { name: 'Exceptions' }).click();
    await page.getByRole('link', { name: 'Payments the bank never answered' }).click();

    const title = `${journalNo} line 0`;
    const item = page.getByRole('region', { name: title });
    await item.getByRole('heading', { name: `Payments the bank never answered: ${title}` }).waitFor();
    assert.match(await item.locator('dl.facts').innerText(), /BRW-OUT-1/);
    const candidate = item.locator('tbody tr').first();
    assert.match(await candidate.innerText(), new RegExp(`Paid by unmatched-entry:${entryId}`));
    assert.deepEqual(await seriousViolations(page), [], '/dashboard/exceptions?kind=unanswered-outbound');

    await item.getByLabel(`Paid by unmatched-entry:${entryId}`).check();
    await item.getByLabel('Reason for the match').fill('booked under the bank reference BRW-B-1');
    await item.getByRole('button', { name: `Match ${title}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Matched entry ${statement} #0 to ${documentId} line 0 (30.00)` })
      .waitFor();
    assert.equal(await page.getByRole('region', { name: title }).count(), 0, 'the line left the queue');

    // The document page: the line cleared by a person (rule manual), the run executed as if the bank had said so.
    await page.goto(`/dashboard/journal/${documentId}`);
    const facts = page.locator('dl.facts').first();
    assert.match(await facts.innerText(), /Status\s+executed/);
    const row = page.locator('tbody tr', { hasText: 'BRW-OUT-1' });
    assert.match(await row.innerText(), /cleared[\s\S]*matched by user \S+ to 30\.00 EUR[\s\S]*Rule: manual/);
    assert.match(await page.locator('ol.timeline').innerText(), /sent -> executed by manual match mat_/);
    assert.deepEqual(await seriousViolations(page), [], '/dashboard/journal/{id}');

    // Undone (the API's DELETE; the dashboard offers no unmatch): sent again, the line back in the queue.
    const matchId = (
      await db.query(`SELECT id FROM line_matches WHERE company_id = $1 AND unmatched_at IS NULL`, [s.companyId])
    ).rows[0].id as string;
    clock.advance(1000);
    const undo = await t.request({
      method: 'DELETE',
      url: `/reconciliation/matches/${matchId}?companyId=${s.companyId}`,
      headers: { 'x-api-key': s.apiKey },
      payload: { reason: 'the debit was another run' },
    });
    assert.equal(undo.statusCode, 200, undo.body);
    await page.reload();
    assert.match(await page.locator('dl.facts').first().innerText(), /Status\s+sent/);
    assert.match(await page.locator('tbody tr', { hasText: 'BRW-OUT-1' }).innerText(), /pending/);
    await page.goto('/dashboard/exceptions?kind=unanswered-outbound');
    await page.getByRole('region', { name: title }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();

    const outbox = await db.query(
      `SELECT type FROM outbox_events WHERE company_id = $1 AND payload->'data'->>'documentId' = $2 ORDER BY created_at, id`,
      [s.companyId, documentId],
    );
    assert.deepEqual(
      outbox.rows.map((r) => r.type),
      ['payment.sent', 'payment.executed', 'payment.sent'],
    );
    assert.equal(await status(), 'sent');
  });
});

const PAYEE = 'FI5542345670000081';

/** One payment of one line to PAYEE, submitted with the sandbox's key and delivered to the demo bank. */
async function submitOne(s: Sandbox, messageId: string, endToEndId: string, amount: string) {
  const payment = structuredClone(s.firstPayment.body.payment) as {
    messageId: string;
    payments: Array<{ transactions: Array<Record<string, unknown> & { creditor: { account: { iban: string } } }> }>;
  };
  payment.messageId = messageId;
  const block = payment.payments[0]!;
  const tx = structuredClone(block.transactions[0]!);
  tx['endToEndId'] = endToEndId;
  tx['amount'] = amount;
  tx.creditor.account.iban = PAYEE;
  block.transactions = [tx];
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': s.apiKey, 'idempotency-key': messageId },
    payload: { companyId: s.companyId, bankKey: 'demo', environment: 'test', payment },
  });
  assert.equal(res.statusCode, 201, res.body);
  const { id, journalNo } = res.json() as { id: string; journalNo: string };
  await deliverNow(t.ctx, { platformId: s.platformId, companyId: s.companyId }, id);
  return { documentId: id, journalNo };
}
