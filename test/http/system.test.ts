/**
 * System routes (contract: System and onboarding): /health, /version, /ready (and its 503 cases),
 * /fx/rates and the daily refresh of the rates from a configured source.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { fxRatesProvider, parseRatesDocument } from '../../src/app/system/fx-rates.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { body, startTestApp, type TestApp } from '../harness.ts';

const packageVersion = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

describe('health, version, readiness', () => {
  test('/health answers 200 {status: "ok"}', async () => {
    const res = await t.request({ method: 'GET', url: '/health' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  test('/version answers the package.json version, a 0.x string', async () => {
    const res = await t.request({ method: 'GET', url: '/version' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { version: packageVersion });
    assert.match(packageVersion, /^0\.\d+\.\d+/);
  });

  test('/ready answers 200 {ready: true} on a reachable, migrated database', async () => {
    const res = await t.request({ method: 'GET', url: '/ready' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { ready: true });
  });

  test('/ready answers 503 {ready: false, error} while a migration is pending, and recovers', async () => {
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      const last = await db.query(
        'DELETE FROM drizzle.__drizzle_migrations WHERE id = (SELECT max(id) FROM drizzle.__drizzle_migrations) RETURNING *',
      );
      assert.equal(last.rowCount, 1);
      const res = await t.request({ method: 'GET', url: '/ready' });
      assert.equal(res.statusCode, 503);
      assert.deepEqual(res.json(), { ready: false, error: '1 database migration(s) pending' });
      const row = last.rows[0] as { id: number; hash: string; created_at: string };
      await db.query('INSERT INTO drizzle.__drizzle_migrations (id, hash, created_at) VALUES ($1, $2, $3)', [
        row.id,
        row.hash,
        row.created_at,
      ]);
      assert.equal((await t.request({ method: 'GET', url: '/ready' })).statusCode, 200);
    } finally {
      await db.end();
    }
  });

  test('/ready answers 503 when the database has never been migrated', async () => {
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      await db.query('ALTER TABLE drizzle.__drizzle_migrations RENAME TO __drizzle_migrations_aside');
      const res = await t.request({ method: 'GET', url: '/ready' });
      assert.equal(res.statusCode, 503);
      const out = body<{ ready: boolean; error: string }>(res);
      assert.equal(out.ready, false);
      assert.match(out.error, /^\d+ database migration\(s\) pending$/);
    } finally {
      await db.query('ALTER TABLE drizzle.__drizzle_migrations_aside RENAME TO __drizzle_migrations');
      await db.end();
    }
  });
});

describe('/fx/rates', () => {
  test('answers indicative EUR-based rates with asOf', async () => {
    const res = await t.request({ method: 'GET', url: '/fx/rates' });
    assert.equal(res.statusCode, 200);
    const out = body<{ base: string; rates: Record<string, number>; asOf: string | null }>(res);
    assert.deepEqual(Object.keys(out).sort(), ['asOf', 'base', 'rates']);
    assert.equal(out.base, 'EUR');
    assert.equal(out.rates.EUR, 1);
    for (const code of ['USD', 'GBP', 'SEK', 'NOK', 'DKK', 'PLN', 'CHF']) {
      assert.equal(typeof out.rates[code], 'number', code);
    }
    for (const [code, rate] of Object.entries(out.rates)) {
      assert.match(code, /^[A-Z]{3}$/);
      assert.ok(Number.isFinite(rate) && rate > 0, `${code} ${rate}`);
    }
    assert.ok(out.asOf === null || /^\d{4}-\d{2}-\d{2}/.test(out.asOf), String(out.asOf));
  });

  describe('refresh from FX_RATES_URL', () => {
    let server: Server;
    let reply: { status: number; type: string; text: string };
    let url: string;
    before(async () => {
      server = createServer((_req, res) => {
        res.writeHead(reply.status, { 'content-type': reply.type });
        res.end(reply.text);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rates`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    async function started(): Promise<ReturnType<typeof fxRatesProvider>> {
      const provider = fxRatesProvider(url, createLogger('silent'));
      const initial = provider.current();
      provider.start();
      for (let i = 0; i < 100 && provider.current() === initial; i++) await new Promise((r) => setTimeout(r, 20));
      provider.stop();
      return provider;
    }

    test('a JSON source replaces the bundled snapshot on start', async () => {
      reply = {
        status: 200,
        type: 'application/json',
        text: JSON.stringify({ base: 'EUR', date: '2026-11-19', rates: { USD: 1.1, bad: 3, JPY: -1 } }),
      };
      assert.deepEqual((await started()).current(), { base: 'EUR', rates: { EUR: 1, USD: 1.1 }, asOf: '2026-11-19' });
    });

    test('the ECB daily XML is read too', async () => {
      reply = {
        status: 200,
        type: 'text/xml',
        text: `<gesmes:Envelope><Cube><Cube time="2026-11-18"><Cube currency="USD" rate="1.0801"/><Cube currency="SEK" rate="11.5"/></Cube></Cube></gesmes:Envelope>`,
      };
      assert.deepEqual((await started()).current(), {
        base: 'EUR',
        rates: { EUR: 1, USD: 1.0801, SEK: 11.5 },
        asOf: '2026-11-18',
      });
    });

    test('a failing or unusable source keeps the previous rates', async () => {
      assert.equal(parseRatesDocument('{"base":"USD","rates":{}}'), undefined);
      assert.equal(parseRatesDocument('<html>maintenance</html>'), undefined);
      reply = { status: 500, type: 'text/plain', text: 'down' };
      const provider = fxRatesProvider(url, createLogger('silent'));
      const before = provider.current();
      provider.start();
      await new Promise((r) => setTimeout(r, 150));
      provider.stop();
      assert.equal(provider.current(), before);
      assert.equal(before.base, 'EUR');
    });
  });
});

describe('when the database is unreachable', () => {
  test('/ready answers 503 {ready: false, error} without driver details; /health stays 200', async () => {
    const broken = await startTestApp();
    try {
      await broken.ctx.db.$client.end();
      const res = await broken.request({ method: 'GET', url: '/ready' });
      assert.equal(res.statusCode, 503);
      assert.deepEqual(res.json(), { ready: false, error: 'database unreachable' });
      assert.equal((await broken.request({ method: 'GET', url: '/health' })).statusCode, 200);
    } finally {
      // Closing the pool a second time fails; the run's clean-up drops the database.
      await broken.close().catch(() => {});
    }
  });
});
