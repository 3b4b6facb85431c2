import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { httpWhitelistClient } from '../../src/app/journal/whitelist-client.ts';
import { setBilling } from '../../src/db/repositories/billing.ts';
import { samplePayment } from '../domain-conversion/fixtures.ts';
import { assertError, body, nextIp, startTestApp, type TestApp } from '../harness.ts';

/** POST /journal/payments/preview and the Polish white-list client. */
type Sandbox = { apiKey: string; companyId: string; platformId: string; firstPayment: { body: Body } };
type Body = { companyId: string; bankKey: string; environment?: string; payment: Record<string, unknown> } & Record<
  string,
  unknown
>;
type Preview = {
  xml: string;
  painVersion: string;
  preview: boolean;
  warnings: Array<{ code: string; severity: string; paymentType?: string }>;
  autoSelected: Array<{ paymentId: string; selected: string; confidence: string; reason: string }>;
  autoFilled: string[];
  unknownFieldsDropped: string[];
  whitelist: {
    applicable: boolean;
    outcome: string;
    checks: Array<{
      nip: string;
      nrb: string;
      date: string;
      status: string;
      requestId: string | null;
      error: string | null;
    }>;
  };
};

const EVEN_NIP = '5260250274';
const ODD_NIP = '5260250297';
const PL_IBAN = 'PL61109010140000071219812874';

let t: TestApp;
let s: Sandbox;

async function provision(app: TestApp = t): Promise<Sandbox> {
  const res = await app.request({ method: 'POST', url: '/sandbox/provision', payload: {}, remoteAddress: nextIp() });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as Sandbox;
}

const preview = (payload: unknown, sb: Sandbox = s, app: TestApp = t) =>
  app.request({
    method: 'POST',
    url: '/journal/payments/preview',
    headers: { 'x-api-key': sb.apiKey },
    payload: payload as object,
  });

function polishSplit(companyId: string, taxId: string): Body {
  const payment = samplePayment('PL_SPLIT', 'PL');
  const tx = (payment.payments as Array<{ transactions: Array<{ splitPayment: { taxId: string } }> }>)[0]!
    .transactions[0]!;
  tx.splitPayment.taxId = taxId;
  return { companyId, bankKey: 'mbank-pl', environment: 'test', payment };
}

async function journalSideEffects(companyId: string) {
  const r = await t.ctx.db.execute<{ docs: string; events: string; jobs: string; approvals: string }>(sql`
    SELECT (SELECT count(*) FROM journal_documents WHERE company_id = ${companyId})::text AS docs,
           (SELECT count(*) FROM activity_events WHERE company_id = ${companyId} AND type LIKE 'payment.%')::text AS events,
           (SELECT count(*) FROM pgboss.job WHERE data->>'companyId' = ${companyId})::text AS jobs,
           (SELECT count(*) FROM approvals WHERE company_id = ${companyId})::text AS approvals`);
  return r.rows[0];
}

before(async () => {
  t = await startTestApp();
  s = await provision();
});
after(() => t.close());

describe('POST /journal/payments/preview', () => {
  test('answers every field and journals, approves and dispatches nothing', async () => {
    const res = await preview(s.firstPayment.body);
    assert.equal(res.statusCode, 200, res.body);
    const p = body<Preview>(res);
    assert.equal(p.preview, true);
    assert.match(p.xml, /<CstmrCdtTrfInitn>/);
    assert.equal(p.painVersion, 'pain.001.001.09');
    assert.deepEqual(p.warnings, []);
    assert.deepEqual(p.autoSelected, []);
    assert.ok(Array.isArray(p.autoFilled));
    assert.deepEqual(p.unknownFieldsDropped, []);
    assert.deepEqual(p.whitelist, { applicable: false, outcome: 'not-applicable', checks: [] });
    assert.deepEqual(await journalSideEffects(s.companyId), { docs: '0', events: '0', jobs: '0', approvals: '0' });
  });

  test('warnings carry the paymentType, also an auto-selected one; unknown fields are reported', async () => {
    const b = structuredClone(s.firstPayment.body);
    const pay = (b.payment.payments as Array<Record<string, unknown>>)[0]!;
    delete pay.paymentType;
    const tx = (pay.transactions as Array<Record<string, unknown>>)[0]!;
    tx.remittance = { unstructured: 'Laskú ñ 1001' };
    tx.colour = 'blue';
    const p = body<Preview>(await preview(b));
    assert.equal(p.autoSelected.length, 1);
    const selected = p.autoSelected[0]!.selected;
    assert.ok(p.warnings.length > 0);
    for (const w of p.warnings) {
      assert.equal(w.severity, 'warning');
      assert.equal(w.paymentType, selected);
    }
    assert.deepEqual(p.unknownFieldsDropped, ['payments[0].transactions[0].colour']);
  });

  test('400 missing fields or platformId, 422 invalid payment, 404 unknown bank or company, 403 other platform', async () => {
    const { payment: _p, ...noPayment } = s.firstPayment.body;
    assertError(await preview(noPayment), 400, 'validation_failed');
    const { bankKey: _b, ...noBank } = s.firstPayment.body;
    assertError(await preview(noBank), 400, 'validation_failed');
    assertError(await preview({ ...s.firstPayment.body, platformId: s.platformId }), 400, 'bad_request');
    const bad = structuredClone(s.firstPayment.body);
    (bad.payment.payments as Array<{ transactions: Array<{ amount: string }> }>)[0]!.transactions[0]!.amount = '-1';
    assertError(await preview(bad), 422, 'invalid_payment');
    assertError(await preview({ ...s.firstPayment.body, bankKey: 'nope' }), 404, 'not_found');
    assertError(await preview({ ...s.firstPayment.body, companyId: 'comp_nope' }), 404, 'not_found');
    const other = await provision();
    assertError(await preview({ ...s.firstPayment.body, companyId: other.companyId }), 403, 'forbidden');
  });

  test('validate=true runs the schema check too', async () => {
    const res = await preview({ ...s.firstPayment.body, validate: true });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(body<{ schemaValidation: { ran: string[] } }>(res).schemaValidation.ran.includes('schema-model'));
  });

  test('no billing gate and no rate limit on preview, even for production', async () => {
    const sb = await provision();
    await setBilling(
      t.ctx.db,
      { platformId: sb.platformId, companyId: sb.companyId },
      { productionPaymentsSent: 10, pastDueSince: new Date(Date.now() - 90 * 86_400_000) },
      new Date(),
    );
    for (let i = 0; i < 130; i++) {
      const res = await preview({ ...sb.firstPayment.body, environment: 'production' }, sb);
      assert.equal(res.statusCode, 200, res.body);
    }
  });

  test('Polish bank with a NIP: the sandbox registry verifies an even NIP and not an odd one', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const ok = body<Preview>(await preview(polishSplit(s.companyId, EVEN_NIP)));
    assert.deepEqual(ok.whitelist, {
      applicable: true,
      outcome: 'verified',
      checks: [
        {
          nip: EVEN_NIP,
          nrb: PL_IBAN.slice(2),
          date: today,
          status: 'assigned',
          requestId: ok.whitelist.checks[0]!.requestId,
          error: null,
        },
      ],
    });
    assert.ok(ok.whitelist.checks[0]!.requestId);
    const no = body<Preview>(await preview(polishSplit(s.companyId, ODD_NIP)));
    assert.equal(no.whitelist.outcome, 'unverified');
    assert.equal(no.whitelist.checks[0]!.status, 'not-assigned');
    // A Polish payment without a tax id is not applicable.
    const elixir = {
      companyId: s.companyId,
      bankKey: 'mbank-pl',
      environment: 'test',
      payment: samplePayment('PL_ELIXIR', 'PL'),
    };
    const plain = body<Preview>(await preview(elixir));
    assert.deepEqual(plain.whitelist, { applicable: false, outcome: 'not-applicable', checks: [] });
  });
});

describe('white-list HTTP client (Ministry of Finance API shape)', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      const m = /^\/api\/check\/nip\/(\d+)\/bank-account\/(\d+)\?date=(\d{4}-\d{2}-\d{2})$/.exec(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      if (!m) return void res.writeHead(400).end(JSON.stringify({ code: 'WL-100', message: 'bad request' }));
      const nip = m[1]!;
      if (nip === '1111111111') return void res.writeHead(500).end(JSON.stringify({ message: 'down' }));
      if (nip === '2222222222') return void res.writeHead(200).end('not json');
      res
        .writeHead(200)
        .end(
          JSON.stringify({ result: { accountAssigned: nip === EVEN_NIP ? 'TAK' : 'NIE', requestId: `req-${nip}` } }),
        );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('TAK, NIE, server errors and garbage; answers are cached per (nip, nrb, date)', async () => {
    const client = httpWhitelistClient(`${base}/`);
    const q = { nrb: PL_IBAN.slice(2), date: '2026-11-20' };
    assert.deepEqual(await client.check({ nip: EVEN_NIP, ...q }), {
      nip: EVEN_NIP,
      ...q,
      status: 'assigned',
      requestId: `req-${EVEN_NIP}`,
      error: null,
    });
    assert.equal(seen.at(-1), `/api/check/nip/${EVEN_NIP}/bank-account/${q.nrb}?date=2026-11-20`);
    assert.equal((await client.check({ nip: ODD_NIP, ...q })).status, 'not-assigned');
    const down = await client.check({ nip: '1111111111', ...q });
    assert.deepEqual([down.status, down.requestId], ['error', null]);
    assert.match(String(down.error), /500/);
    assert.equal((await client.check({ nip: '2222222222', ...q })).status, 'error');
    const before = seen.length;
    await client.check({ nip: EVEN_NIP, ...q });
    assert.equal(seen.length, before, 'cached');
  });

  test('unreachable host is an error check, not a failure', async () => {
    const client = httpWhitelistClient('http://127.0.0.1:1');
    const r = await client.check({ nip: EVEN_NIP, nrb: PL_IBAN.slice(2), date: '2026-11-20' });
    assert.equal(r.status, 'error');
    assert.match(String(r.error), /unreachable/);
  });

  test('WHITELIST_API_URL sends the preview to that server, with outcome error when it fails', async () => {
    const app = await startTestApp({ env: { WHITELIST_API_URL: base } });
    try {
      const sb = await provision(app);
      const ok = body<Preview>(await preview(polishSplit(sb.companyId, EVEN_NIP), sb, app));
      assert.equal(ok.whitelist.outcome, 'verified');
      assert.equal(ok.whitelist.checks[0]!.requestId, `req-${EVEN_NIP}`);
      const no = body<Preview>(await preview(polishSplit(sb.companyId, ODD_NIP), sb, app));
      assert.equal(no.whitelist.outcome, 'unverified');
      assert.equal(no.whitelist.checks[0]!.requestId, `req-${ODD_NIP}`);
    } finally {
      await app.close();
    }
  });
});
