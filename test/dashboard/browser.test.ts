/**
 * The dashboard end to end in real Chromium (playwright-core driving Debian's chromium) against the
 * whole service listening on a real port, with its workers and the sandbox's demo bank: the journeys
 * of a treasury user, browser security (CSRF, escaping, CSP), and axe-core on every page.
 * Skipped with the reason when chromium is not installed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { totpCode } from '../../src/domain/identity/totp.ts';
import { freePort } from '../../src/platform/free-port.ts';
import { addCompanyUser, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { chromiumMissing, launchChromium, seriousViolations } from '../support/chromium.ts';
import { statementWith } from '../support/statement-with.ts';
import { eventually, type Receiver, startReceiver, testCa } from '../webhooks/support.ts';

type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;

let t: TestApp;
let base: string;
let chromium: Browser;
let receiver: Receiver;

describe('the dashboard in Chromium', { skip: chromiumMissing }, () => {
  before(async () => {
    receiver = await startReceiver();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({
      workers: true,
      env: {
        PUBLIC_BASE_URL: base,
        DEMO_BANK_DELAY_MS: '300',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        EXTRA_CA_CERTS: testCa().caFile,
      },
    });
    await t.app.listen({ port, host: '127.0.0.1' });
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await t?.close();
    await receiver?.close();
  });

  /** A fresh browser context (its own cookies) with the page's errors collected. */
  async function newPage(): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await chromium.newContext({ baseURL: base });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('dialog', (d) => {
      errors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    return { context, page, errors };
  }

  async function signIn(page: Page, sandbox: Sandbox, path = '/dashboard') {
    await page.goto(path);
    await page.getByLabel('Email').fill(sandbox.dashboardLogin.email);
    await page.getByLabel('Password').fill(sandbox.dashboardLogin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
  }

  async function submit(sandbox: Sandbox, payee: string, remittance: string) {
    const body = structuredClone(sandbox.firstPayment.body) as { payment: Record<string, unknown> };
    const payment = body.payment as { messageId: string; payments: { transactions: Record<string, unknown>[] }[] };
    payment.messageId = `MSG-${Math.random().toString(36).slice(2, 10)}`;
    const tx = payment.payments[0]!.transactions[0]!;
    (tx['creditor'] as Record<string, unknown>)['name'] = payee;
    tx['remittance'] = { unstructured: remittance };
    const res = await t.request({
      method: 'POST',
      url: '/journal/payments',
      headers: { 'x-api-key': sandbox.apiKey, 'idempotency-key': payment.messageId },
      payload: body,
    });
    assert.equal(res.statusCode, 201, res.body);
    const doc = res.json() as { id: string; journalNo: string };
    await eventually(async () => {
      const lines = await t.request({
        method: 'GET',
        url: `/journal/documents/${doc.id}/payments?companyId=${sandbox.companyId}`,
        headers: { 'x-api-key': sandbox.apiKey },
      });
      const body = lines.json() as { status: string; payments: { recon: { state: string; evidence: unknown } }[] };
      return (
        (body.status === 'executed' || body.status === 'rejected') &&
        body.payments.every((p) => p.recon.state !== 'pending')
      );
    }, 30_000);
    return doc;
  }

  test('a new sandbox user follows dashboardLogin.url, signs in, sends the first payment and sees it executed and cleared with evidence', async () => {
    const sandbox = await provisionAndLogin(t);
    const { context, page, errors } = await newPage();
    assert.equal(new URL(sandbox.dashboardLogin.url).origin, base);
    await page.goto(sandbox.dashboardLogin.url);
    assert.match(page.url(), /\/dashboard\/sign-in$/);
    await signIn(page, sandbox, sandbox.dashboardLogin.url);
    await page.getByRole('heading', { name: 'Overview of Sandbox Company' }).waitFor();
    await page.getByRole('link', { name: 'Sandbox' }).click();
    await page.getByRole('button', { name: /Send the first payment/ }).click();
    // The page reloads itself (meta refresh, no script) until the bank has answered.
    await page.getByText('✔ Every line reconciled against the bank statement').waitFor({ timeout: 30_000 });
    await page.getByText('✔ The bank answered: executed').waitFor();
    await page.getByRole('link', { name: /with its evidence/ }).click();
    await page.getByRole('heading', { name: 'Payment lines and their evidence' }).waitFor();
    const line = page.locator('tbody tr').first();
    assert.match(await line.innerText(), /cleared/);
    assert.match(await line.innerText(), /File: camt\.053/);
    assert.match(await line.innerText(), /Rule: /);
    assert.match(await page.locator('ol.timeline').innerText(), /payment\.submitted/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('find a payment by text and open its evidence; a rejected line says its reason in words', async () => {
    const sandbox = await provisionAndLogin(t);
    const found = await submit(sandbox, 'Evidence Seeker Oy', 'Invoice 77');
    const rejected = await submit(sandbox, 'Closed Account Ab', 'REJECT:AC04');
    const { context, page, errors } = await newPage();
    await signIn(page, sandbox);
    await page.getByRole('link', { name: 'Journal' }).click();
    await page.getByLabel(/^Text/).fill('Evidence Seeker');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: found.journalNo, exact: true }).click();
    await page.getByRole('heading', { name: 'Payment lines and their evidence' }).waitFor();
    assert.match(
      await page.locator('tbody tr').first().innerText(),
      /Evidence Seeker Oy[\s\S]*cleared[\s\S]*File: camt\.053/,
    );

    await page.getByRole('link', { name: 'Reconciliation' }).click();
    const rejectedRow = page.locator('tr', { hasText: `${rejected.journalNo} #1` }).first();
    assert.match(await rejectedRow.innerText(), /AC04: Closed account number/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('register a webhook, send a test event and read its delivery log', async () => {
    const sandbox = await provisionAndLogin(t);
    const { context, page, errors } = await newPage();
    await signIn(page, sandbox);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('URL (https)').fill(receiver.url);
    await page.getByLabel('webhook.test').check();
    await page.getByRole('button', { name: 'Register' }).click();
    const secret = await page.locator('#secret').innerText();
    assert.match(secret, /\S{20,}/);
    assert.equal(page.url().includes(secret), false);
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByText('A webhook.test event was queued').waitFor();
    await eventually(async () => {
      await page.reload();
      return /succeeded/.test(await page.locator('table').innerText());
    }, 30_000);
    const row = await page.locator('tbody tr').first().innerText();
    assert.match(row, /webhook\.test[\s\S]*succeeded[\s\S]*200/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a form posted without its CSRF token is refused and changes nothing', async () => {
    const sandbox = await provisionAndLogin(t);
    const { context, page } = await newPage();
    await signIn(page, sandbox);
    await page.getByRole('link', { name: 'Users and API keys' }).click();
    await page.getByLabel('Label of a new key').fill('csrf-less');
    await page.evaluate(() => {
      for (const input of document.querySelectorAll('input[name="csrf_token"]')) input.remove();
    });
    await page.getByRole('button', { name: 'Create a key' }).click();
    await page.getByRole('heading', { name: 'This form was refused' }).waitFor();
    const keys = await t.request({
      method: 'GET',
      url: `/platforms/${sandbox.platformId}/api-keys`,
      headers: { 'x-session-token': sandbox.sessionToken },
    });
    const labels = (keys.json() as { items: { label: string }[] }).items.map((k) => k.label);
    assert.equal(labels.includes('csrf-less'), false);
    await context.close();
  });

  test('markup in a payee name is shown as text, never run', async () => {
    const sandbox = await provisionAndLogin(t);
    const payee = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
    const res = await t.request({
      method: 'POST',
      url: '/journal/ingest',
      headers: { 'x-api-key': sandbox.apiKey },
      payload: { companyId: sandbox.companyId, content: camt053WithPayee(payee) },
    });
    assert.equal(res.statusCode, 201, res.body);
    const { context, page, errors } = await newPage();
    await signIn(page, sandbox);
    await page.getByRole('link', { name: 'Journal' }).click();
    await page.getByRole('link', { name: 'IN-1', exact: true }).click();
    await page.getByRole('heading', { name: 'Entries', exact: true }).waitFor();
    assert.match(
      await page.locator('tbody').first().innerText(),
      /<img src=x onerror="alert\(1\)"><script>alert\(2\)<\/script>/,
    );
    assert.equal(await page.locator('main img').count(), 0);
    assert.equal(await page.locator('main script').count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('sign in with 2FA; revoke a session from another browser context', async () => {
    const sandbox = await provisionAndLogin(t);
    const first = await newPage();
    await signIn(first.page, sandbox);
    await first.page.getByRole('link', { name: 'Security' }).click();
    await first.page.getByRole('button', { name: 'Set up 2FA' }).click();
    assert.equal(await first.page.locator('figure.qr svg').count(), 1);
    const secret = await first.page.locator('#totp-secret').innerText();
    await first.page.getByLabel('Code from your authenticator app').fill(totpCode(secret, new Date()));
    await first.page.getByRole('button', { name: 'Enable 2FA' }).click();
    assert.equal(await first.page.locator('#recovery-codes li').count(), 10);

    // Another browser: password, then the code (the next time step: the one just used is spent).
    const second = await newPage();
    await second.page.goto('/dashboard');
    await second.page.getByLabel('Email').fill(sandbox.dashboardLogin.email);
    await second.page.getByLabel('Password').fill(sandbox.dashboardLogin.password);
    await second.page.getByRole('button', { name: 'Sign in' }).click();
    await second.page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    await second.page.getByLabel('Code').fill('000000');
    await second.page.getByRole('button', { name: 'Verify' }).click();
    await second.page.getByText('Wrong or already used code.').waitFor();
    await second.page.getByLabel('Code').fill(totpCode(secret, new Date(Date.now() + 30_000)));
    await second.page.getByRole('button', { name: 'Verify' }).click();
    await second.page.getByRole('heading', { name: /^Overview of / }).waitFor();

    // The second browser signs the first one out.
    await second.page.getByRole('link', { name: 'Security' }).click();
    const others = second.page.locator('tr', { has: second.page.getByRole('button', { name: 'Revoke' }) });
    // Two other sessions: the first browser's and the harness's API login.
    assert.equal(await others.count(), 2);
    await second.page.getByRole('button', { name: 'Revoke' }).first().click();
    await second.page.getByText('The session is signed out.').waitFor();
    await second.page.getByRole('button', { name: 'Revoke' }).first().click();
    await second.page.getByText('The session is signed out.').waitFor();
    await first.page.goto('/dashboard/journal');
    assert.match(first.page.url(), /\/dashboard\/sign-in\?next=/);
    await second.page.goto('/dashboard/journal');
    assert.match(second.page.url(), /\/dashboard\/journal$/);
    // The wrong code's page is answered 401, which Chromium logs; nothing else may be.
    const unexpected = [...first.errors, ...second.errors].filter((e) => !/status of 401/.test(e));
    assert.deepEqual(unexpected, []);
    await first.context.close();
    await second.context.close();
  });

  test('approve a payment as a second user and watch it execute; reject another with a reason', async () => {
    const sandbox = await provisionAndLogin(t);
    const approver = { email: `approver-${sandbox.companyId}@example.com`, password: 'approver password 123' };
    await addCompanyUser(t, sandbox, { ...approver, name: 'Anna Approver', roles: ['approver'] });

    const admin = await newPage();
    await signIn(admin.page, sandbox);
    await admin.page.getByRole('link', { name: 'Approvals' }).click();
    await admin.page.getByRole('link', { name: 'New approval policy' }).click();
    await admin.page.getByLabel('Policy name', { exact: true }).fill('Two eyes');
    // Only the group's member counts: Anna.
    await admin.page.getByLabel('Group 1: name', { exact: true }).fill('Checkers');
    await admin.page
      .getByRole('checkbox', { name: /Anna Approver/ })
      .first()
      .check();
    await admin.page.getByRole('button', { name: 'Add the policy' }).click();
    await admin.page.getByText('The policy Two eyes is in force for new payments.').waitFor();
    assert.match(await admin.page.locator('tr', { hasText: 'Two eyes' }).innerText(), /Checkers \(1\)/);
    await admin.page.getByRole('link', { name: 'Sandbox' }).click();
    await admin.page.getByRole('button', { name: /Send the first payment/ }).click();
    await admin.page.getByText('… Waiting for approval').waitFor();
    const journalNo = (await admin.page.getByRole('link', { name: /with its evidence/ }).innerText()).split(' ')[1]!;
    await admin.page.goto('/dashboard/approvals');
    // The maker cannot approve their own payment.
    assert.equal(await admin.page.getByRole('button', { name: `Approve ${journalNo}` }).count(), 0);

    const checker = await newPage();
    await signIn(checker.page, { ...sandbox, dashboardLogin: { ...sandbox.dashboardLogin, ...approver } });
    await checker.page.getByRole('link', { name: journalNo }).first().waitFor();
    await checker.page.getByRole('link', { name: 'Approvals' }).click();
    await checker.page.getByRole('button', { name: `Approve ${journalNo}` }).click();
    await checker.page.getByText(`${journalNo} is approved and goes to the bank.`).waitFor();
    await checker.page.getByRole('link', { name: 'Journal' }).click();
    await checker.page.getByRole('link', { name: journalNo, exact: true }).click();
    await eventually(async () => {
      await checker.page.reload();
      return /cleared/.test(await checker.page.locator('main').innerText());
    }, 30_000);
    assert.match(await checker.page.locator('dl.facts').first().innerText(), /executed/);
    assert.match(await checker.page.locator('ol.timeline').innerText(), /approval\.approved/);

    // Another payment, sent with the API key: rejected with a reason, it is cancelled.
    const body = structuredClone(sandbox.firstPayment.body) as { payment: { messageId: string } };
    body.payment.messageId = 'REJECT-ME-1';
    const sent = await t.request({
      method: 'POST',
      url: '/journal/payments',
      headers: { 'x-api-key': sandbox.apiKey, 'idempotency-key': 'reject-me-1' },
      payload: body,
    });
    assert.equal(sent.statusCode, 201, sent.body);
    const second = sent.json() as { id: string; journalNo: string; status: string };
    assert.equal(second.status, 'pending-approval');
    await checker.page.goto('/dashboard/approvals');
    await checker.page.getByLabel('Reason for rejecting').fill('Wrong supplier account');
    await checker.page.getByRole('button', { name: `Reject ${second.journalNo}` }).click();
    await checker.page.getByText(`${second.journalNo} is rejected and cancelled.`).waitFor();
    await checker.page.goto(`/dashboard/journal/${second.id}`);
    const facts = await checker.page.locator('main').innerText();
    assert.match(facts, /cancelled/);
    assert.match(facts, /Anna Approver: Wrong supplier account/);
    assert.deepEqual([...admin.errors, ...checker.errors], []);
    await admin.context.close();
    await checker.context.close();
  });

  test('edit an approval policy: a refused group is shown at its field, corrected it is saved with its order', async () => {
    const sandbox = await provisionAndLogin(t);
    const created = await t.request({
      method: 'POST',
      url: '/approval-policies',
      headers: { 'x-session-token': sandbox.sessionToken },
      payload: { platformId: sandbox.platformId, companyId: sandbox.companyId, name: 'From 5000', minAmount: '5000' },
    });
    assert.equal(created.statusCode, 201, created.body);
    for (const name of ['Olli Approver', 'Pia Approver']) {
      const email = `${name.split(' ')[0]!.toLowerCase()}-${sandbox.companyId}@example.com`;
      await addCompanyUser(t, sandbox, { email, name, roles: ['approver'], password: 'approver password 123' });
    }
    const { context, page, errors } = await newPage();
    await signIn(page, sandbox);
    await page.goto('/dashboard/approvals');
    await page.getByRole('link', { name: 'Edit the policy From 5000' }).click();
    await page.getByRole('heading', { name: 'Edit the policy From 5000' }).waitFor();
    await page.getByLabel('Approvals needed').fill('2');
    await page.getByLabel('Groups approve in their order').check();
    await page.getByLabel('Group 1: name', { exact: true }).fill('Treasury');
    await page
      .getByRole('checkbox', { name: /Olli Approver/ })
      .first()
      .check();
    // A second group with a member but no name: refused by the server, said at that field.
    await page
      .getByRole('checkbox', { name: /Pia Approver/ })
      .nth(1)
      .check();
    await page.getByRole('button', { name: 'Save the changes' }).click();
    await page.getByText('The policy was not saved: 1 field(s) to correct, marked below.').waitFor();
    const nameField = page.getByLabel('Group 2: name', { exact: true });
    assert.equal(await nameField.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#group1-name-error').innerText(), 'a name of 1 to 100 characters');
    // What was typed is still there.
    assert.equal(await page.getByLabel('Group 1: name', { exact: true }).inputValue(), 'Treasury');
    await nameField.fill('Controllers');
    // Listed second, approving first.
    await page.getByLabel('Group 1: order', { exact: true }).fill('2');
    await page.getByLabel('Group 2: order', { exact: true }).fill('1');
    await page.getByRole('button', { name: 'Save the changes' }).click();
    await page.getByText('The policy From 5000 is changed; approvals already waiting keep their rules.').waitFor();
    assert.match(await page.locator('tr', { hasText: 'From 5000' }).innerText(), /Controllers \(1\) → Treasury \(1\)/);
    const policies = await t.request({
      method: 'GET',
      url: `/approval-policies?companyId=${sandbox.companyId}`,
      headers: { 'x-session-token': sandbox.sessionToken },
    });
    const [policy] = (policies.json() as { items: Record<string, unknown>[] }).items;
    assert.ok(policy);
    assert.equal(policy['requiredApprovals'], 2);
    assert.equal(policy['orderedApproval'], true);
    assert.deepEqual(
      (policy['groups'] as { name: string }[]).map((g) => g.name),
      ['Controllers', 'Treasury'],
    );
    assert.deepEqual(
      errors.filter((e) => !/status of 400/.test(e)),
      [],
    );
    await context.close();
  });

  test('change the password: the other browser is signed out, this one stays; the new password signs in', async () => {
    const sandbox = await provisionAndLogin(t);
    const first = await newPage();
    const second = await newPage();
    await signIn(first.page, sandbox);
    await signIn(second.page, sandbox);
    await first.page.getByRole('link', { name: 'Security' }).click();
    await first.page.getByRole('link', { name: 'Change your password' }).click();
    await first.page.getByLabel('Current password').fill(sandbox.dashboardLogin.password);
    await first.page.getByLabel(/^New password \(at least/).fill('my new password 2026');
    await first.page.getByLabel('New password again').fill('my new password 2027');
    await first.page.getByRole('button', { name: 'Change password' }).click();
    await first.page.getByText('the two new passwords differ').waitFor();
    await first.page.getByLabel('Current password').fill(sandbox.dashboardLogin.password);
    await first.page.getByLabel(/^New password \(at least/).fill('my new password 2026');
    await first.page.getByLabel('New password again').fill('my new password 2026');
    await first.page.getByRole('button', { name: 'Change password' }).click();
    // The second browser and the harness's API login.
    await first.page.getByText('Your password is changed. 2 other sessions were signed out.').waitFor();
    await first.page.getByRole('link', { name: 'Journal' }).click();
    assert.match(first.page.url(), /\/dashboard\/journal$/);
    await second.page.goto('/dashboard/journal');
    assert.match(second.page.url(), /\/dashboard\/sign-in\?next=/);
    await second.page.getByLabel('Email').fill(sandbox.dashboardLogin.email);
    await second.page.getByLabel('Password').fill('my new password 2026');
    await second.page.getByRole('button', { name: 'Sign in' }).click();
    await second.page.getByRole('heading', { name: 'Journal' }).waitFor();
    // The refused form's page is answered 400, which Chromium logs; nothing else may be.
    assert.deepEqual(
      [...first.errors, ...second.errors].filter((e) => !/status of 400/.test(e)),
      [],
    );
    await first.context.close();
    await second.context.close();
  });

  test('the reconciliation page lists a statement entry that matched no payment', async () => {
    const sandbox = await provisionAndLogin(t);
    const day = new Date().toISOString().slice(0, 10);
    const res = await t.request({
      method: 'POST',
      url: '/journal/ingest',
      headers: { 'x-api-key': sandbox.apiKey },
      payload: {
        companyId: sandbox.companyId,
        environment: 'test',
        content: statementWith('BR-UNMATCHED', 1, [
          { amount: '42.00', direction: 'DBIT', ref: 'BR-REF-1', name: 'Card Acquirer Oy', text: 'Terminal fee', day },
        ]),
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const { context, page, errors } = await newPage();
    await signIn(page, sandbox);
    await page.getByRole('link', { name: 'Reconciliation' }).click();
    await page.getByRole('heading', { name: 'Unmatched statement entries (1)' }).waitFor();
    const row = await page.locator('tr', { hasText: 'BR-REF-1' }).innerText();
    assert.match(
      row,
      new RegExp(`${day}[\\s\\S]*debit[\\s\\S]*42\\.00 EUR[\\s\\S]*Card Acquirer Oy[\\s\\S]*Terminal fee[\\s\\S]*IN-1`),
    );
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('every page passes axe-core with no serious violation, and loads nothing the CSP refuses', async () => {
    const sandbox = await provisionAndLogin(t);
    const doc = await submit(sandbox, 'Axe Check Oy', 'Invoice 5');
    const { context, page, errors } = await newPage();
    await page.goto('/dashboard/sign-in');
    assert.deepEqual(await seriousViolations(page), [], 'sign-in');
    await signIn(page, sandbox);
    const accounts = await t.request({
      method: 'GET',
      url: `/accounts?companyId=${sandbox.companyId}`,
      headers: { 'x-session-token': sandbox.sessionToken },
    });
    const account = (accounts.json() as { items: { id: string }[] }).items[0]?.id;
    const paths = [
      '/dashboard',
      '/dashboard/journal',
      `/dashboard/journal/${doc.id}`,
      '/dashboard/approvals',
      '/dashboard/approval-policies/new',
      '/dashboard/reconciliation',
      '/dashboard/accounts',
      ...(account ? [`/dashboard/accounts?account=${account}`] : []),
      '/dashboard/webhooks',
      '/dashboard/users',
      '/dashboard/connections',
      '/dashboard/security',
      '/dashboard/security/password',
      '/dashboard/sandbox',
    ];
    for (const path of paths) {
      const res = await page.goto(path);
      assert.equal(res?.status(), 200, path);
      assert.deepEqual(await seriousViolations(page), [], path);
    }
    if (account) {
      await page.goto(`/dashboard/accounts?account=${account}`);
      await page.locator('.chart canvas').first().waitFor();
    }
    assert.deepEqual(errors, []);
    await context.close();
  });
});

/** A one-entry camt.053 whose counterparty name is `payee` (escaped as XML, as a bank would send it). */
function camt053WithPayee(payee: string): string {
  const xml = payee.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
  const day = new Date().toISOString().slice(0, 10);
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>
<GrpHdr><MsgId>XSS-1</MsgId><CreDtTm>${day}T08:00:00Z</CreDtTm></GrpHdr>
<Stmt><Id>XSS-STMT-1</Id><ElctrncSeqNb>1</ElctrncSeqNb><CreDtTm>${day}T08:00:00Z</CreDtTm>
<Acct><Id><IBAN>FI2112345600000785</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">100.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${day}</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">110.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${day}</Dt></Dt></Bal>
<Ntry><Amt Ccy="EUR">10.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${day}</Dt></BookgDt><ValDt><Dt>${day}</Dt></ValDt>
<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
<NtryDtls><TxDtls><Refs><EndToEndId>XSS-E2E-1</EndToEndId></Refs>
<RltdPties><Dbtr><Nm>${xml}</Nm></Dbtr></RltdPties><RmtInf><Ustrd>Payment</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
</Stmt></BkToCstmrStmt></Document>`;
}
