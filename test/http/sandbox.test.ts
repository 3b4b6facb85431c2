/**
 * Sandbox provisioning (contract: POST /sandbox/provision): every field of the 201, the key and the
 * dashboard login work, 404 outside a sandbox deployment, 429 after 5 an hour per IP, and removal of
 * sandboxes unused for 30 days.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isValidBIC, isValidIBAN } from 'ibantools';
import pg from 'pg';
import { removeIdleSandboxes, SANDBOX_RETENTION_MS } from '../../src/app/sandbox/retention.ts';
import { manualClock } from '../../src/platform/clock.ts';
import { assertError, body, nextIp, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';

type Provisioned = {
  apiKey: string;
  companyId: string;
  platformId: string;
  baseUrl: string;
  subdomain: string;
  bank: { key: string; name: string; country: string };
  dashboardLogin: { url: string; subdomain: string; email: string; password: string };
  firstPayment: {
    method: string;
    url: string;
    headers: Record<string, string>;
    body: {
      companyId: string;
      bankKey: string;
      environment: string;
      payment: {
        messageId: string;
        initiatingParty: { name: string };
        payments: {
          paymentId: string;
          executionDate: string;
          debtor: { name: string; account: { iban: string; currency: string }; agent: { bic: string } };
          transactions: {
            endToEndId: string;
            amount: string;
            currency: string;
            creditor: { name: string; account: { iban: string }; agent: { bic: string } };
          }[];
        }[];
      };
    };
  };
};

let t: TestApp;
let db: pg.Pool;
before(async () => {
  t = await startTestApp();
  db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
});
after(async () => {
  await db.end();
  await t.close();
});

const provision = (payload?: Record<string, unknown>, remoteAddress = nextIp()) =>
  t.request({
    method: 'POST',
    url: '/sandbox/provision',
    remoteAddress,
    ...(payload === undefined ? {} : { payload }),
  });

/** A call that takes an API key: inviting a viewer into the sandbox company. */
const useKey = (key: string, platformId: string, companyId: string) =>
  t.request({
    method: 'POST',
    url: '/users',
    headers: { 'x-api-key': key },
    payload: { platformId, companyId, email: `v-${Math.random()}@example.com`, name: 'V', roles: ['viewer'] },
  });

describe('POST /sandbox/provision', () => {
  let sb: Provisioned;
  before(async () => {
    const res = await provision({});
    assert.equal(res.statusCode, 201, res.body);
    sb = body<Provisioned>(res);
  });

  test('answers 201 with every field of the contract', () => {
    assert.deepEqual(Object.keys(sb).sort(), [
      'apiKey',
      'bank',
      'baseUrl',
      'companyId',
      'dashboardLogin',
      'firstPayment',
      'platformId',
      'subdomain',
    ]);
    assert.match(sb.apiKey, /^key_[0-9a-f]{64}$/);
    assert.match(sb.companyId, /^comp_[0-9a-z]{26}$/);
    assert.match(sb.platformId, /^plat_[0-9a-z]{26}$/);
    assert.equal(sb.baseUrl, t.ctx.config.publicBaseUrl);
    assert.match(sb.baseUrl, /^https?:\/\/[^/]+$/);
    assert.match(sb.subdomain, /^[a-z0-9-]+$/);
    assert.deepEqual(sb.bank, { key: 'demo', name: 'Demo Bank (sandbox)', country: 'FI' });
    assert.deepEqual(Object.keys(sb.dashboardLogin).sort(), ['email', 'password', 'subdomain', 'url']);
    assert.equal(sb.dashboardLogin.subdomain, sb.subdomain);
    assert.ok(sb.dashboardLogin.url.startsWith(sb.baseUrl), sb.dashboardLogin.url);
    assert.match(sb.dashboardLogin.email, /^[^\s@]+@[^\s@]+\.[^\s@]+$/);
    assert.ok(sb.dashboardLogin.password.length >= 16, 'a strong random password');
  });

  test('firstPayment is a ready POST /journal/payments to the demo bank in the test environment', () => {
    const fp = sb.firstPayment;
    assert.deepEqual(Object.keys(fp).sort(), ['body', 'headers', 'method', 'url']);
    assert.equal(fp.method, 'POST');
    assert.equal(fp.url, `${sb.baseUrl}/journal/payments`);
    assert.equal(fp.headers['X-API-Key'], sb.apiKey);
    assert.equal(fp.headers['Content-Type'], 'application/json');
    assert.ok(fp.headers['Idempotency-Key'] && fp.headers['Idempotency-Key'].length > 0);
    assert.equal(fp.body.companyId, sb.companyId);
    assert.equal(fp.body.bankKey, 'demo');
    assert.equal(fp.body.environment, 'test');
    assert.ok(!('platformId' in fp.body), 'a key never states its platform');
    const payment = fp.body.payment;
    assert.ok(payment.messageId.length > 0 && payment.messageId.length <= 35, payment.messageId);
    assert.equal(fp.headers['Idempotency-Key'], payment.messageId);
    assert.ok(payment.initiatingParty.name.length > 0);
    assert.ok(Array.isArray(payment.payments) && payment.payments.length >= 1);
    const today = new Date().toISOString().slice(0, 10);
    for (const p of payment.payments) {
      assert.ok(p.paymentId);
      assert.equal(p.executionDate, today);
      assert.ok(isValidIBAN(p.debtor.account.iban), p.debtor.account.iban);
      assert.ok(isValidBIC(p.debtor.agent.bic), p.debtor.agent.bic);
      assert.ok(p.transactions.length >= 1);
      for (const tx of p.transactions) {
        assert.ok(tx.endToEndId);
        assert.match(tx.amount, /^\d+\.\d{2}$/);
        assert.equal(tx.currency, 'EUR');
        assert.ok(isValidIBAN(tx.creditor.account.iban), tx.creditor.account.iban);
        assert.ok(isValidBIC(tx.creditor.agent.bic), tx.creditor.agent.bic);
        assert.ok(tx.creditor.name);
      }
    }
  });

  test('the API key authenticates and is bound to the sandbox platform', async () => {
    const res = await useKey(sb.apiKey, sb.platformId, sb.companyId);
    assert.equal(res.statusCode, 201, res.body);
    const listed = await t.request({
      method: 'GET',
      url: `/platforms/${sb.platformId}/companies`,
      headers: { 'x-api-key': sb.apiKey },
    });
    assertError(listed, 403, 'forbidden'); // a valid key, refused on the control plane
  });

  test('the dashboard login signs in as workspace admin and admin of the company', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/auth/login',
      payload: { email: sb.dashboardLogin.email, password: sb.dashboardLogin.password },
      remoteAddress: nextIp(),
    });
    assert.equal(res.statusCode, 200, res.body);
    const user = body<{ user: { platformId: string; companyId: string; workspaceAdmin: boolean; roles: string[] } }>(
      res,
    ).user;
    assert.equal(user.platformId, sb.platformId);
    assert.equal(user.companyId, sb.companyId);
    assert.equal(user.workspaceAdmin, true);
    assert.deepEqual(user.roles, ['admin']);
  });

  test('it stores a platform marked sandbox, its company, and an active demo connection in test', async () => {
    const platform = await db.query('SELECT sandbox FROM platforms WHERE id = $1', [sb.platformId]);
    assert.equal(platform.rows[0]?.sandbox, true);
    const company = await db.query('SELECT platform_id FROM companies WHERE id = $1', [sb.companyId]);
    assert.equal(company.rows[0]?.platform_id, sb.platformId);
    const conns = await db.query(
      'SELECT bank_key, environment, status, company_id FROM connections WHERE platform_id = $1',
      [sb.platformId],
    );
    assert.deepEqual(conns.rows, [
      { bank_key: 'demo', environment: 'test', status: 'active', company_id: sb.companyId },
    ]);
    const keys = await db.query('SELECT digest FROM api_keys WHERE platform_id = $1', [sb.platformId]);
    assert.equal(keys.rowCount, 1);
    assert.ok(!JSON.stringify(keys.rows).includes(sb.apiKey.slice(4)));
  });

  test('each provision is a separate tenant', async () => {
    const other = body<Provisioned>(await provision());
    assert.notEqual(other.platformId, sb.platformId);
    assert.notEqual(other.companyId, sb.companyId);
    assert.notEqual(other.apiKey, sb.apiKey);
    assert.notEqual(other.dashboardLogin.email, sb.dashboardLogin.email);
    assertError(await useKey(other.apiKey, sb.platformId, sb.companyId), 403, 'forbidden');
  });

  test('a bare POST without a body, and the optional fields, are accepted', async () => {
    const bare = await provision(undefined);
    assert.equal(bare.statusCode, 201, bare.body);
    const named = await provision({ bankKey: 'demo', companyName: '  Acme Sandbox  ', label: 'my laptop' });
    assert.equal(named.statusCode, 201, named.body);
    const out = body<Provisioned>(named);
    const login = await t.request({
      method: 'POST',
      url: '/auth/login',
      payload: { email: out.dashboardLogin.email, password: out.dashboardLogin.password },
      remoteAddress: nextIp(),
    });
    const token = body<{ sessionToken: string }>(login).sessionToken;
    const companies = body<{ items: { id: string; name: string }[] }>(
      await t.request({
        method: 'GET',
        url: `/platforms/${out.platformId}/companies`,
        headers: { 'x-session-token': token },
      }),
    );
    assert.deepEqual(
      companies.items.map((c) => c.name),
      ['Acme Sandbox'],
    );
    const keys = body<{ items: { label: string }[] }>(
      await t.request({
        method: 'GET',
        url: `/platforms/${out.platformId}/api-keys`,
        headers: { 'x-session-token': token },
      }),
    );
    assert.deepEqual(
      keys.items.map((k) => k.label),
      ['my laptop'],
    );
  });

  test('an unknown bank key or a bad company name is 400', async () => {
    assertError(await provision({ bankKey: 'nordea' }), 400, 'bad_request');
    assertError(await provision({ companyName: '   ' }), 400, 'bad_request');
    assertError(await provision({ companyName: 'x'.repeat(201) }), 400, 'validation_failed');
  });

  test('the 6th provision from one IP within the hour is 429 rate_limited with Retry-After in seconds', async () => {
    const ip = nextIp();
    for (let i = 0; i < 5; i++) assert.equal((await provision({}, ip)).statusCode, 201, `provision ${i + 1}`);
    const limited = await provision({}, ip);
    const error = assertError(limited, 429, 'rate_limited');
    const retryAfter = String(limited.headers['retry-after']);
    assert.match(retryAfter, /^\d+$/, 'whole seconds');
    assert.ok(Number(retryAfter) > 3500 && Number(retryAfter) <= 3600, retryAfter);
    assert.equal(error.details?.retryAfterSeconds, Number(retryAfter));
    assert.equal(limited.headers['service-version'], '2026-06-01');
    assert.match(String(limited.headers['x-request-id']), /^req_/);
    const platforms = await db.query('SELECT count(*)::int AS n FROM platforms');
    // Another address is not affected.
    assert.equal((await provision({})).statusCode, 201);
    const after = await db.query('SELECT count(*)::int AS n FROM platforms');
    assert.equal(after.rows[0]?.n, platforms.rows[0]?.n + 1);
  });
});

test('404 not_found where the deployment is not a sandbox (SANDBOX=false)', async () => {
  const production = await startTestApp({ env: { SANDBOX: 'false' } });
  try {
    const res = await production.request({ method: 'POST', url: '/sandbox/provision', payload: {} });
    assertError(res, 404, 'not_found');
    const check = new pg.Client({ connectionString: production.databaseUrl });
    await check.connect();
    const platforms = await check.query('SELECT count(*)::int AS n FROM platforms');
    await check.end();
    assert.equal(platforms.rows[0]?.n, 0);
  } finally {
    await production.close();
  }
});

describe('retention: sandboxes unused for 30 days are removed', () => {
  const DAY = 24 * 60 * 60 * 1000;
  const clock = manualClock(new Date('2026-01-01T09:00:00Z'));
  let r: TestApp;
  let rdb: pg.Pool;
  before(async () => {
    r = await startTestApp({ clock });
    rdb = new pg.Pool({ connectionString: r.databaseUrl, max: 2 });
  });
  after(async () => {
    await rdb.end();
    await r.close();
  });

  const owned = async (platformId: string) => {
    const counts: Record<string, number> = {};
    for (const table of ['platforms', 'companies', 'users', 'api_keys', 'sessions', 'connections']) {
      const column = table === 'platforms' ? 'id' : 'platform_id';
      const res = await rdb.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [platformId]);
      counts[table] = res.rows[0]?.n as number;
    }
    return counts;
  };

  test('an idle sandbox goes with everything it owns; a recently used one stays', async () => {
    assert.equal(SANDBOX_RETENTION_MS, 30 * DAY);
    const idle = await provisionAndLogin(r);
    const used = await provisionAndLogin(r);
    const before = await owned(idle.platformId);
    for (const [table, n] of Object.entries(before)) assert.ok(n >= 1, `${table} has rows of the idle sandbox`);

    // 29 days later the used sandbox's key makes a call; its activity is recorded without a write per request.
    clock.advance(29 * DAY);
    assert.equal((await useKeyOn(r, used)).statusCode, 201);
    let activity: Date | undefined;
    for (let i = 0; i < 50; i++) {
      const row = await rdb.query('SELECT last_activity_at FROM platforms WHERE id = $1', [used.platformId]);
      activity = row.rows[0]?.last_activity_at as Date;
      if (activity.getTime() > Date.parse('2026-01-02T00:00:00Z')) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.ok(activity && activity.getTime() > Date.parse('2026-01-29T00:00:00Z'), String(activity));

    // At 30 days minus a minute nothing goes; at 31 days the idle sandbox does.
    clock.set(new Date(Date.parse('2026-01-31T08:59:00Z')));
    assert.deepEqual(await removeIdleSandboxes(r.ctx), []);
    clock.advance(DAY);
    assert.deepEqual(await removeIdleSandboxes(r.ctx), [idle.platformId]);

    assert.deepEqual(await owned(idle.platformId), {
      platforms: 0,
      companies: 0,
      users: 0,
      api_keys: 0,
      sessions: 0,
      connections: 0,
    });
    const kept = await owned(used.platformId);
    assert.equal(kept.platforms, 1);
    assert.equal(kept.companies, 1);
    assert.ok(kept.api_keys! >= 1 && kept.users! >= 1 && kept.connections! >= 1);

    assertError(await useKeyOn(r, idle), 401, 'unauthorized');
    const login = await r.request({
      method: 'POST',
      url: '/auth/login',
      payload: { email: idle.dashboardLogin.email, password: idle.dashboardLogin.password },
      remoteAddress: nextIp(),
    });
    assertError(login, 401, 'unauthorized');
    assert.equal((await useKeyOn(r, used)).statusCode, 201, 'the kept sandbox still works');
  });

  test('a non-sandbox platform is never removed, however idle', async () => {
    await rdb.query(
      `INSERT INTO platforms (id, name, sandbox, created_at, last_activity_at)
       VALUES ('plat_production', 'Production', false, '2020-01-01', '2020-01-01')`,
    );
    assert.ok(!(await removeIdleSandboxes(r.ctx)).includes('plat_production'));
    assert.equal((await owned('plat_production')).platforms, 1);
  });

  test('the retention job is scheduled daily on the job queue', async () => {
    const w = await startTestApp({ workers: true });
    try {
      const wdb = new pg.Client({ connectionString: w.databaseUrl });
      await wdb.connect();
      const rows = await wdb.query('SELECT name, cron FROM pgboss.schedule');
      await wdb.end();
      const retention = rows.rows.find((row: { name: string }) => row.name === 'sandbox-retention');
      assert.ok(retention, JSON.stringify(rows.rows));
      assert.match(retention.cron, /^\d+ \d+ \* \* \*$/, 'once a day');
    } finally {
      await w.close();
    }
  });
});

function useKeyOn(app: TestApp, sandbox: { apiKey: string; platformId: string; companyId: string }) {
  return app.request({
    method: 'POST',
    url: '/users',
    headers: { 'x-api-key': sandbox.apiKey },
    payload: {
      platformId: sandbox.platformId,
      companyId: sandbox.companyId,
      email: `k-${Math.random().toString(36).slice(2)}@example.com`,
      name: 'K',
      roles: ['viewer'],
    },
  });
}
