/**
 * The Exceptions queue journey in real Chromium (playwright-core driving Debian's chromium; docs/adr/
 * 0075), against the service on a real port: a credit no rule matched appears in the queue beside its
 * nearest expected payment and why it did not match; a person ticks the candidate, gives a reason and
 * matches it; the credit leaves the queue, the Receivables page shows the expected payment received,
 * and the audit trail names the person. axe-core finds nothing serious on either page. Skipped with
 * the reason when chromium is not installed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { freePort } from '../../src/platform/free-port.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { credits, expect, incoming, ingest } from '../receivables/support.ts';
import { chromiumMissing, launchChromium, seriousViolations } from '../support/chromium.ts';

let t: TestApp;
let base: string;
let chromium: Browser;
let db: pg.Client;

describe('the Exceptions queue in Chromium', { skip: chromiumMissing }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({ env: { PUBLIC_BASE_URL: base } });
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
});
