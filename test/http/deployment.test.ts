/**
 * A deployment that is not a sandbox, and billing (DESIGN.md, Identity and Billing), on real
 * PostgreSQL: the operator's `create-platform` and `create-admin` commands, then sign-in over HTTP;
 * BOOTSTRAP=true opening the first-admin route; sandbox-only companies refusing production
 * connections; the price list the 402 body points at, the billing status, and the operator's billing
 * commands.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { setBilling } from '../../src/db/repositories/billing.ts';
import { assertError, body, nextIp, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Packages = {
  currency: string;
  items: { id: string; name: string; productionPayments: number; period: string; price: string }[];
};
type Status = {
  package: Packages['items'][number] | null;
  productionPaymentsSent: number;
  freeLimit: number;
  pastDueSince: string | null;
};

let t: TestApp;
let bootstrapping: TestApp;

before(async () => {
  t = await startTestApp();
  bootstrapping = await startTestApp({ env: { BOOTSTRAP: 'true' }, databaseUrl: t.databaseUrl });
});
after(async () => {
  await bootstrapping.close();
  await t.close();
});

function cli(args: string[], stdin?: string) {
  const child = spawn(process.execPath, [path.join(ROOT, 'src/main/cli.ts'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'silent' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdin.end(stdin ?? '');
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
}

/** The sandbox's first payment for production, with a message id of its own (no replay of an earlier submit). */
function productionPayment(sb: Awaited<ReturnType<typeof provisionAndLogin>>) {
  const payload = structuredClone(sb.firstPayment.body);
  payload.payment['messageId'] = `MSG-${randomBytes(6).toString('hex')}`;
  return { ...payload, environment: 'production' };
}

const session = (token: string) => ({ 'x-session-token': token });
const email = (tag: string) => `${tag}-${randomBytes(4).toString('hex')}@example.com`;

describe('operator bootstrap', () => {
  test('create-platform and create-admin make a platform an admin signs in to and runs production from', async () => {
    const platform = await cli(['create-platform', 'Acme', 'Treasury']);
    assert.equal(platform.code, 0, platform.stderr);
    const platformId = platform.stdout.trim();
    assert.match(platformId, /^plat_[0-9a-z]{26}$/);

    const adminEmail = email('operator');
    const password = 'Operator-Password-1';
    const admin = await cli(['create-admin', platformId, adminEmail, 'First', 'Admin'], `${password}\n`);
    assert.equal(admin.code, 0, admin.stderr);
    assert.match(admin.stdout, /^usr_\S+ /);
    assert.ok(!admin.stdout.includes(password) && !admin.stderr.includes(password));
    assert.equal((await cli(['create-admin', platformId, adminEmail, 'Again'], `${password}\n`)).code, 1);
    assert.equal((await cli(['create-admin', 'plat_nope', email('x'), 'X'], `${password}\n`)).code, 2);
    assert.equal((await cli(['create-admin', platformId, email('short'), 'Short'], 'short\n')).code, 1);

    const login = await t.request({
      method: 'POST',
      url: '/auth/login',
      payload: { email: adminEmail, password },
      remoteAddress: nextIp(),
    });
    assert.equal(login.statusCode, 200, login.body);
    const token = body<{ sessionToken: string; user: { workspaceAdmin: boolean } }>(login);
    assert.equal(token.user.workspaceAdmin, true);

    // A company made here is not sandbox-only: its production connections are allowed.
    const company = await t.request({
      method: 'POST',
      url: `/platforms/${platformId}/companies`,
      headers: session(token.sessionToken),
      payload: { name: 'Acme Oy' },
    });
    assert.equal(company.statusCode, 201, company.body);
    const companyId = body<{ company: { id: string } }>(company).company.id;
    await t.request({
      method: 'POST',
      url: '/auth/company-context',
      headers: session(token.sessionToken),
      payload: { companyId },
    });
    const connection = await t.request({
      method: 'POST',
      url: '/connections',
      headers: session(token.sessionToken),
      payload: { platformId, companyId, bankKey: 'demo', environment: 'production' },
    });
    assert.equal(connection.statusCode, 201, connection.body);
  });

  test('BOOTSTRAP=true opens the first-admin route while the platform has no admin; without it the route needs a session', async () => {
    const platformId = (await cli(['create-platform', 'Bootstrapped'])).stdout.trim();
    const first = { email: email('first'), name: 'First', password: 'First-Password-1' };
    assertError(
      await t.request({ method: 'POST', url: `/platforms/${platformId}/admins`, payload: first }),
      401,
      'unauthorized',
    );
    const created = await bootstrapping.request({
      method: 'POST',
      url: `/platforms/${platformId}/admins`,
      payload: first,
    });
    assert.equal(created.statusCode, 201, created.body);
    assertError(
      await bootstrapping.request({
        method: 'POST',
        url: `/platforms/${platformId}/admins`,
        payload: { ...first, email: email('second') },
      }),
      401,
      'unauthorized',
    );
  });
});

describe('sandbox-only companies', () => {
  test('a provisioned company refuses production connections with 403 sandbox_only; test connections work', async () => {
    const sb = await provisionAndLogin(t);
    const create = (environment: string) =>
      t.request({
        method: 'POST',
        url: '/connections',
        headers: session(sb.sessionToken),
        payload: { platformId: sb.platformId, companyId: sb.companyId, bankKey: 'op', environment },
      });
    assertError(await create('production'), 403, 'sandbox_only');
    assert.equal((await create('test')).statusCode, 201);
  });
});

describe('billing', () => {
  test('GET /billing/packages is public and the 402 packagesUrl resolves to it', async () => {
    const res = await t.request({ method: 'GET', url: '/billing/packages' });
    assert.equal(res.statusCode, 200);
    const list = body<Packages>(res);
    assert.equal(list.currency, 'EUR');
    assert.ok(list.items.length >= 1);
    for (const item of list.items) {
      assert.deepEqual(Object.keys(item).sort(), ['id', 'name', 'period', 'price', 'productionPayments']);
      assert.match(item.price, /^\d+\.\d{2}$/);
    }

    const sb = await provisionAndLogin(t);
    await setBilling(
      t.ctx.db,
      { platformId: sb.platformId, companyId: sb.companyId },
      { productionPaymentsSent: 10 },
      new Date(),
    );
    const submit = await t.request({
      method: 'POST',
      url: '/journal/payments',
      headers: { ...sb.firstPayment.headers, 'idempotency-key': randomBytes(8).toString('hex') },
      payload: productionPayment(sb),
    });
    const error = assertError(submit, 402, 'trial_payments_exhausted');
    const url = new URL(String(error.details?.['packagesUrl']));
    assert.equal(url.pathname, '/billing/packages');
    const followed = await t.request({ method: 'GET', url: url.pathname });
    assert.equal(followed.statusCode, 200);
    assert.deepEqual(body(followed), list);
  });

  test('billing status for a key or a member; the operator activates a package, marks past due and paid', async () => {
    const sb = await provisionAndLogin(t);
    const other = await provisionAndLogin(t);
    const status = async (headers: Record<string, string>, companyId = sb.companyId) =>
      t.request({ method: 'GET', url: `/billing/status?companyId=${companyId}`, headers });
    const initial = await status({ 'x-api-key': sb.apiKey });
    assert.equal(initial.statusCode, 200, initial.body);
    assert.deepEqual(body(initial), { package: null, productionPaymentsSent: 0, freeLimit: 10, pastDueSince: null });
    assert.equal((await status(session(sb.sessionToken))).statusCode, 200);
    assertError(await status({ 'x-api-key': other.apiKey }), 403, 'forbidden');
    assertError(await status(session(other.sessionToken)), 403, 'forbidden');
    assertError(await status({}), 401, 'unauthorized');

    const activated = await cli(['billing', 'activate', sb.companyId, 'business']);
    assert.equal(activated.code, 0, activated.stderr);
    const withPackage = body<Status>(await status({ 'x-api-key': sb.apiKey }));
    assert.equal(withPackage.package?.id, 'business');

    // With a package the trial gate no longer applies.
    await setBilling(
      t.ctx.db,
      { platformId: sb.platformId, companyId: sb.companyId },
      { productionPaymentsSent: 10 },
      new Date(),
    );
    const submit = await t.request({
      method: 'POST',
      url: '/journal/payments',
      headers: { ...sb.firstPayment.headers, 'idempotency-key': randomBytes(8).toString('hex') },
      payload: productionPayment(sb),
    });
    assert.notEqual(submit.statusCode, 402, submit.body);

    const pastDue = await cli(['billing', 'past-due', sb.companyId, '2026-01-15']);
    assert.equal(pastDue.code, 0, pastDue.stderr);
    assert.equal(body<Status>(await status({ 'x-api-key': sb.apiKey })).pastDueSince, '2026-01-15T00:00:00.000Z');
    const blocked = await t.request({
      method: 'POST',
      url: '/journal/payments',
      headers: { ...sb.firstPayment.headers, 'idempotency-key': randomBytes(8).toString('hex') },
      payload: productionPayment(sb),
    });
    assertError(blocked, 402, 'billing_past_due');
    assert.equal((await cli(['billing', 'paid', sb.companyId])).code, 0);
    assert.equal(body<Status>(await status({ 'x-api-key': sb.apiKey })).pastDueSince, null);

    assert.equal((await cli(['billing', 'activate', sb.companyId, 'gold'])).code, 2);
    assert.equal((await cli(['billing', 'past-due', sb.companyId, '2026-02-30'])).code, 2);
    assert.equal((await cli(['billing', 'paid', 'comp_unknown'])).code, 2);
    assert.equal((await cli(['billing'])).code, 2);
  });
});
