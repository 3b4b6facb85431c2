/**
 * The dashboard's pages through inject: the guard (sign-in redirect, CSRF), the browser security
 * headers, escaping, and each page reading what the API reads. The same journeys in a real browser
 * are in browser.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addCompanyUser, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { type Browser, get, post, signIn } from './support.ts';

let t: TestApp;
let sandbox: Awaited<ReturnType<typeof provisionAndLogin>>;
let browser: Browser;

before(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  sandbox = await provisionAndLogin(t);
  browser = await signIn(t, sandbox.dashboardLogin.email, sandbox.dashboardLogin.password);
});
after(() => t.close());

async function submit(payee: string, remittance = 'Invoice 1') {
  const body = structuredClone(sandbox.firstPayment.body) as { payment: Record<string, unknown> };
  const payment = body.payment as { messageId: string; payments: { transactions: Record<string, unknown>[] }[] };
  payment.messageId = `MSG-${Math.random().toString(36).slice(2, 10)}`;
  const tx = payment.payments[0]!.transactions[0]!;
  (tx['creditor'] as Record<string, unknown>)['name'] = payee;
  tx['endToEndId'] = `E2E-${Math.random().toString(36).slice(2, 10)}`;
  tx['remittance'] = { unstructured: remittance };
  const res = await t.request({
    method: 'POST',
    url: '/journal/payments',
    headers: { 'x-api-key': sandbox.apiKey, 'idempotency-key': payment.messageId },
    payload: body,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; journalNo: string };
}

describe('the guard', () => {
  test('a page without a session redirects to sign-in and comes back after it', async () => {
    const res = await t.request({ method: 'GET', url: '/dashboard/journal?q=x' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/dashboard/sign-in?next=${encodeURIComponent('/dashboard/journal?q=x')}`);
  });

  test('an API credential does not open a page', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/dashboard',
      headers: { 'x-session-token': sandbox.sessionToken },
    });
    assert.equal(res.statusCode, 303);
  });

  test('a form post without the CSRF token is refused and changes nothing', async () => {
    const doc = await submit('CSRF Target');
    const res = await t.request({
      method: 'POST',
      url: `/dashboard/journal/${doc.id}/cancel`,
      headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
      remoteAddress: browser.remoteAddress,
    });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /CSRF token/);
    const after = await t.request({
      method: 'GET',
      url: `/journal/documents/${doc.id}?companyId=${sandbox.companyId}`,
      headers: { 'x-api-key': sandbox.apiKey },
    });
    assert.notEqual((after.json() as { status: string }).status, 'cancelled');
  });

  test('a wrong password shows the form again with 401', async () => {
    const page = await t.request({ method: 'GET', url: '/dashboard/sign-in' });
    const res = await t.request({
      method: 'POST',
      url: '/dashboard/sign-in',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: String(page.headers['set-cookie']).split(';')[0]!,
      },
      payload: new URLSearchParams({
        sign_in_token: /name="sign_in_token" value="([^"]+)"/.exec(page.body)![1]!,
        email: sandbox.dashboardLogin.email,
        password: 'wrong password',
      }).toString(),
    });
    assert.equal(res.statusCode, 401);
    assert.match(res.body, /Wrong email or password/);
    assert.equal(res.headers['set-cookie']?.toString().includes('payops_session='), false);
  });
});

describe('browser security headers', () => {
  test('every page carries CSP default-src self, no framing, nosniff, no-store', async () => {
    const signInPage = await t.request({ method: 'GET', url: '/dashboard/sign-in' });
    const pages = [await get(t, browser, '/dashboard'), await get(t, browser, '/dashboard/journal'), signInPage];
    for (const res of pages) {
      const url = String(res.raw.req.url);
      assert.match(String(res.headers['content-security-policy']), /^default-src 'self';/, url);
      assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/, url);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(res.headers['referrer-policy'], 'no-referrer', url);
      assert.equal(res.headers['cache-control'], 'no-store', url);
    }
  });

  test('the session cookie is HttpOnly and SameSite=Strict', async () => {
    const page = await t.request({ method: 'GET', url: '/dashboard/sign-in' });
    assert.match(String(page.headers['set-cookie']), /HttpOnly/);
    assert.match(String(page.headers['set-cookie']), /SameSite=Strict/);
  });
});

describe('journal and document pages', () => {
  test('quotes and ampersands of a payee name are escaped (the bank charset refuses < and >)', async () => {
    const doc = await submit(`O'Brien & "Sons"`);
    const page = await get(t, browser, `/dashboard/journal/${doc.id}`);
    assert.equal(page.statusCode, 200);
    assert.equal(page.body.includes(`"Sons"`), false);
    assert.match(page.body, /O&#39;Brien &amp; &quot;Sons&quot;/);
  });

  test('a company name with markup is shown as text', async () => {
    const provisioned = await t.request({
      method: 'POST',
      url: '/sandbox/provision',
      payload: { companyName: '<script>alert(1)</script>' },
      remoteAddress: '10.99.0.1',
    });
    const other = provisioned.json() as { dashboardLogin: { email: string; password: string } };
    const own = await signIn(t, other.dashboardLogin.email, other.dashboardLogin.password);
    const page = await get(t, own, '/dashboard');
    assert.equal(page.body.includes('<script>alert(1)</script>'), false);
    assert.match(page.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  });

  test('the journal page lists what GET /journal/documents answers, with the same filters', async () => {
    const doc = await submit('Findable Payee Oy');
    const api = await t.request({
      method: 'GET',
      url: `/journal/documents?companyId=${sandbox.companyId}&q=Findable%20Payee`,
      headers: { 'x-api-key': sandbox.apiKey },
    });
    const items = (api.json() as { items: { journalNo: string }[] }).items;
    assert.deepEqual(
      items.map((i) => i.journalNo),
      [doc.journalNo],
    );
    const page = await get(t, browser, '/dashboard/journal?q=Findable+Payee');
    assert.match(page.body, new RegExp(`>${doc.journalNo}</a>`));
    assert.equal((page.body.match(/<tbody>[\s\S]*?<\/tbody>/)?.[0].match(/<tr>/g) ?? []).length, 1);
  });

  test('a bad filter is a 400 page naming the field, not a JSON error', async () => {
    const page = await get(t, browser, '/dashboard/journal?dateFrom=2026-02-31');
    assert.equal(page.statusCode, 400);
    assert.match(page.body, /dateFrom must be a date/);
    assert.match(String(page.headers['content-type']), /text\/html/);
  });

  test('the document page shows its lines, its timeline and the escaped XML; cancel works with the token', async () => {
    const doc = await submit('Cancel Me Ltd');
    const page = await get(t, browser, `/dashboard/journal/${doc.id}`);
    assert.match(page.body, /Status timeline/);
    assert.match(page.body, /payment\.submitted/);
    assert.match(page.body, /&lt;\?xml/);
    assert.match(page.body, /Cancel Me Ltd/);
    const cancelled = await post(t, browser, `/dashboard/journal/${doc.id}/cancel`, {});
    assert.equal(cancelled.statusCode, 200);
    assert.match(cancelled.body, /The payment was cancelled/);
    const api = await t.request({
      method: 'GET',
      url: `/journal/documents/${doc.id}?companyId=${sandbox.companyId}`,
      headers: { 'x-api-key': sandbox.apiKey },
    });
    assert.equal((api.json() as { status: string }).status, 'cancelled');
  });

  test("another company's document is not found", async () => {
    const other = await provisionAndLogin(t);
    const body = structuredClone(other.firstPayment.body);
    const res = await t.request({
      method: 'POST',
      url: '/journal/payments',
      headers: { 'x-api-key': other.apiKey, 'idempotency-key': 'other-1' },
      payload: body,
    });
    const id = (res.json() as { id: string }).id;
    const page = await get(t, browser, `/dashboard/journal/${id}`);
    assert.equal(page.statusCode, 404);
  });
});

describe('company switcher and roles', () => {
  test("a workspace admin switches company: the pages read the chosen company's journal", async () => {
    const created = await t.request({
      method: 'POST',
      url: `/platforms/${sandbox.platformId}/companies`,
      headers: { 'x-session-token': sandbox.sessionToken },
      payload: { name: 'Second Company Oy' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const second = (created.json() as { company: { id: string } }).company.id;
    const own = await signIn(t, sandbox.dashboardLogin.email, sandbox.dashboardLogin.password);
    const before = await get(t, own, '/dashboard');
    assert.match(before.body, /<option value="[^"]+" selected>Sandbox Company<\/option>/);
    assert.match(before.body, /Second Company Oy<\/option>/);
    const switched = await post(t, own, '/dashboard/company', { companyId: second });
    assert.equal(switched.statusCode, 303);
    const after = await get(t, own, '/dashboard');
    assert.match(after.body, /<h1>Overview of Second Company Oy<\/h1>/);
    const journal = await get(t, own, '/dashboard/journal');
    assert.match(journal.body, /No documents match/);
    // Another platform's company cannot be chosen.
    const other = await provisionAndLogin(t);
    const refused = await post(t, own, '/dashboard/company', { companyId: other.companyId });
    assert.equal(refused.statusCode, 404);
  });

  test('a viewer reads the journal but gets no admin pages or actions', async () => {
    const viewerUser = { email: 'viewer@example.com', password: 'a long viewer password 1' };
    await addCompanyUser(t, sandbox, { ...viewerUser, name: 'Vera Viewer', roles: ['viewer'] });
    const viewer = await signIn(t, 'viewer@example.com', 'a long viewer password 1');
    const overview = await get(t, viewer, '/dashboard');
    assert.equal(overview.body.includes('href="/dashboard/webhooks"'), false);
    assert.equal((await get(t, viewer, '/dashboard/journal')).statusCode, 200);
    const webhooks = await get(t, viewer, '/dashboard/webhooks');
    assert.equal(webhooks.statusCode, 403);
    const doc = await submit('Viewer Cannot Cancel');
    const page = await get(t, viewer, `/dashboard/journal/${doc.id}`);
    assert.equal(page.body.includes('Cancel this payment'), false);
    const cancel = await post(t, viewer, `/dashboard/journal/${doc.id}/cancel`, {});
    assert.match(cancel.body, /company admin required/);
  });
});

describe('forms of the admin pages', () => {
  test('webhooks: the secret is shown once on registering and rotating, never in a URL; disable and enable', async () => {
    const created = await post(t, browser, '/dashboard/webhooks', {
      url: 'https://127.0.0.1:9/hooks',
      transport: 'https',
      'event:payment.executed': 'on',
    });
    assert.equal(created.statusCode, 200, created.body);
    const secret = /<p class="secret" id="secret">([^<]+)<\/p>/.exec(created.body)?.[1];
    assert.ok(secret && secret.length > 20);
    const id = /action="\/dashboard\/webhooks\/([^/"]+)\/test"/.exec(created.body)?.[1];
    assert.ok(id);
    const again = await get(t, browser, `/dashboard/webhooks/${id}`);
    assert.equal(again.body.includes(secret), false, 'the secret is shown once');
    const rotated = await post(t, browser, `/dashboard/webhooks/${id}/rotate-secret`, {});
    const next = /<p class="secret" id="secret">([^<]+)<\/p>/.exec(rotated.body)?.[1];
    assert.ok(next && next !== secret);
    const disabled = await post(t, browser, `/dashboard/webhooks/${id}/disable`, {});
    assert.equal(disabled.statusCode, 303);
    assert.equal(String(disabled.headers.location).includes(next), false);
    assert.match((await get(t, browser, String(disabled.headers.location))).body, /status disabled">disabled</);
    await post(t, browser, `/dashboard/webhooks/${id}/enable`, {});
    assert.match((await get(t, browser, `/dashboard/webhooks/${id}`)).body, /status enabled">enabled</);
    const refused = await post(t, browser, '/dashboard/webhooks', { url: 'http://plain.example/hook' });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /url must be an https URL/);
  });

  test('API keys: created (shown once) and revoked; the key works until it is revoked', async () => {
    const created = await post(t, browser, '/dashboard/api-keys', { label: 'erp sync' });
    const key = /<p class="secret" id="secret">([^<]+)<\/p>/.exec(created.body)?.[1];
    assert.ok(key);
    const call = () => t.request({ method: 'GET', url: '/profiles', headers: { 'x-api-key': key } });
    assert.equal((await call()).statusCode, 200);
    // The key's row: its label, then its id.
    const rows = [...created.body.matchAll(/<tr><td>([^<]+)<\/td><td><code>([^<]+)<\/code>/g)];
    const keyId = rows.find((r) => r[1] === 'erp sync')?.[2];
    assert.ok(keyId);
    const revoked = await post(t, browser, `/dashboard/api-keys/${keyId}/revoke`, {});
    assert.match(revoked.body, /is revoked/);
    assert.equal((await call()).statusCode, 401);
  });

  test('users: the last admin cannot be demoted, said on the page', async () => {
    const page = await get(t, browser, '/dashboard/users');
    const adminId = /action="\/dashboard\/users\/([^/"]+)\/roles" class="inline" aria-label="Roles of admin\+/.exec(
      page.body,
    )?.[1];
    assert.ok(adminId, 'the admin row has a roles form');
    const demoted = await post(t, browser, `/dashboard/users/${adminId}/roles`, { 'role:viewer': 'on' });
    assert.equal(demoted.statusCode, 409);
    assert.match(demoted.body, /last admin/);
  });
});

describe('sign-out', () => {
  test('revokes the session: the cookie no longer opens a page', async () => {
    const own = await signIn(t, sandbox.dashboardLogin.email, sandbox.dashboardLogin.password);
    const out = await post(t, own, '/dashboard/sign-out', {});
    assert.equal(out.statusCode, 303);
    assert.match(String(out.headers['set-cookie']), /payops_session=;/);
    const again = await get(t, own, '/dashboard');
    assert.equal(again.statusCode, 303);
  });
});
