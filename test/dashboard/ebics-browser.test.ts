/**
 * Issue 37's sandbox walk in real Chromium (playwright-core driving Debian's chromium), against the
 * whole service on a real port with its workers and the sandbox's EBICS 3.0 bank simulator: a sandbox
 * user connects deutsche-bank-de on the Bank connections page and onboards it from what the page
 * shows alone (send the keys, the letter, HPB, confirm the bank's hashes), sends the test payment and
 * sees it executed and its line cleared by the camt.053 the pickup fetched by BTD soon after the
 * delivery. Skipped with the reason when chromium is not installed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { freePort } from '../../src/platform/free-port.ts';
import { provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { chromiumMissing, launchChromium, seriousViolations } from '../support/chromium.ts';

let t: TestApp;
let base: string;
let chromium: Browser;

describe('EBICS onboarding on the Bank connections page, in Chromium', { skip: chromiumMissing }, () => {
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({ workers: true, sandboxBanks: true, env: { PUBLIC_BASE_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await t?.close();
  });

  test('deutsche-bank-de: onboarded from the page, the test payment executed and cleared with camt.053 evidence', async () => {
    const sandbox = await provisionAndLogin(t);
    const context = await chromium.newContext({ baseURL: base });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto('/dashboard');
    await page.getByLabel('Email').fill(sandbox.dashboardLogin.email);
    await page.getByLabel('Password').fill(sandbox.dashboardLogin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    await page.getByRole('link', { name: 'Bank connections' }).click();

    await page.getByLabel('Bank').selectOption('deutsche-bank-de');
    await page.getByLabel('Environment').selectOption('test');
    await page.getByRole('button', { name: 'Create the connection' }).click();
    await page.getByText('is pending-activation').waitFor();
    const steps = page.getByRole('list', { name: 'EBICS onboarding' });
    assert.match(await steps.innerText(), /Keys sent \(to do\)/);
    // The sandbox filled the ids the simulated bank set up; sending the keys is INI and HIA.
    assert.notEqual(await page.getByLabel('Host id').inputValue(), '');
    await page.getByRole('button', { name: 'Send the keys' }).click();
    await page.getByText('The EBICS keys are sent').waitFor();
    assert.match(await steps.innerText(), /Keys sent \(done\)[\s\S]*Letter awaiting the bank \(current\)/);
    assert.equal(await steps.locator('[aria-current="step"]').innerText(), 'Letter awaiting the bank (current)');

    const letterHref = await page.getByRole('link', { name: 'initialisation letter' }).getAttribute('href');
    const letter = await context.request.get(letterHref!);
    assert.equal(letter.status(), 200);
    assert.equal((await letter.text()).match(/<pre class="hash">/g)?.length, 3);
    assert.deepEqual(await seriousViolations(page), []);

    // The simulated bank accepts the letter a few seconds after HIA; before, HPB is refused on the page.
    for (let i = 0; ; i++) {
      await page.getByRole('button', { name: 'Fetch the bank keys (HPB)' }).click();
      await page.locator('.notice').first().waitFor();
      if (await page.getByText('HPB received the bank keys').count()) break;
      assert.match(await page.locator('.notice').first().innerText(), /091002|refused/);
      assert.ok(i < 20, 'the bank never accepted the letter');
      await page.waitForTimeout(500);
    }
    assert.match(await steps.innerText(), /Bank keys to confirm \(current\)/);
    const published = t.banks?.ebicsSimulator('deutsche-bank-de')?.bankKeyHashes();
    const pairs = (hex: string) => hex.match(/../g)!.join(' ');
    assert.equal(await page.getByLabel('Authentication key hash').inputValue(), pairs(published!.authentication));
    // A wrong hash is refused on the page and changes nothing.
    await page.getByLabel('Encryption key hash').fill(pairs(published!.authentication));
    await page.getByRole('button', { name: 'Confirm the bank keys' }).click();
    await page.getByText('the hashes do not match').waitFor();
    assert.match(await steps.innerText(), /Bank keys to confirm \(current\)/);
    await page.getByLabel('Encryption key hash').fill(pairs(published!.encryption));
    await page.getByRole('button', { name: 'Confirm the bank keys' }).click();
    await page.getByText('the connection is active over EBICS').waitFor();
    assert.match(await steps.innerText(), /Active \(done\)/);
    assert.deepEqual(await seriousViolations(page), []);

    const card = page.locator('section.card').filter({ hasText: 'Deutsche Bank (test)' });
    await card.getByRole('button', { name: 'Send a test payment' }).click();
    await page.getByText(/Test payment .* sent/).waitFor();
    // Delivered by BTU; the pickup follows the delivery within seconds (not the minute's sweep).
    const started = Date.now();
    for (;;) {
      await page.goto('/dashboard/connections');
      const last = await card.getByText(/^Last test payment:/).innerText();
      if (/executed/.test(last)) break;
      if (Date.now() - started > 30_000) {
        const api = await t.request({
          method: 'GET',
          url: `/connections?platformId=${sandbox.platformId}&companyId=${sandbox.companyId}`,
          headers: { 'x-session-token': sandbox.sessionToken },
        });
        assert.fail(`not executed after 30 s: ${last}; ${api.body}`);
      }
      await page.waitForTimeout(500);
    }
    assert.ok(Date.now() - started < 15_000, `executed ${Date.now() - started} ms after the test payment`);
    await page
      .getByText(/^Last test payment:/)
      .getByRole('link')
      .click();
    await page.getByRole('heading', { name: 'Payment lines and their evidence' }).waitFor();
    const line = page.locator('tbody tr').first();
    assert.match(await line.innerText(), /cleared/);
    assert.match(await line.innerText(), /File: camt\.053/);
    // The refusals (HPB before the letter, the wrong hash) are pages answered 400, as designed; nothing else.
    assert.deepEqual(
      errors.filter((e) => !/the server responded with a status of 400/.test(e)),
      [],
    );
    await context.close();
  });
});
