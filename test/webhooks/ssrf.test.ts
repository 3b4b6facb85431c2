import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { createOutboundHttp, type OutboundHttp } from '../../src/platform/outbound-http.ts';
import { refusalOf, SsrfError, type SsrfPolicy } from '../../src/platform/ssrf-guard.ts';
import { assertError, provisionAndLogin, startTestApp, type TestApp } from '../harness.ts';
import { type Receiver, startReceiver, testCa } from './support.ts';

/** Every form of a private, loopback or metadata target (the list of the issue), as URL hosts. */
const REFUSED_HOSTS = [
  '127.0.0.1',
  'localhost',
  '[::1]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[::127.0.0.1]',
  '0x7f000001',
  '2130706433',
  '0177.0.0.1',
  '127.1',
  '0.0.0.0',
  '169.254.169.254',
  '10.0.0.1',
  '172.16.0.1',
  '192.168.1.1',
  '100.64.0.1',
  '[fc00::1]',
  '[fd00:ec2::254]',
  '[fe80::1]',
  '[64:ff9b::7f00:1]',
  '224.0.0.1',
  'loopback.example.test',
];

/** A test resolver: public-looking names whose DNS answers are loopback (127.0.0.1, 127.0.0.2). */
const resolve: SsrfPolicy['resolve'] = async (host) =>
  host === 'loopback.example.test'
    ? [{ address: '127.0.0.1', family: 4 }]
    : host === 'inner.example.test'
      ? [{ address: '127.0.0.2', family: 4 }]
      : lookup(host, { all: true });

describe('SSRF guard (WEBHOOK_ALLOW_PRIVATE_TARGETS=false)', () => {
  let t: TestApp;
  let sb: Awaited<ReturnType<typeof provisionAndLogin>>;
  let receiver: Receiver;
  let inner: Receiver;
  let http: OutboundHttp;

  before(async () => {
    const ca = testCa();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', EXTRA_CA_CERTS: ca.caFile } });
    sb = await provisionAndLogin(t);
    receiver = await startReceiver('127.0.0.1');
    inner = await startReceiver('127.0.0.2');
    http = createOutboundHttp({ policy: { allowPrivate: false, resolve }, extraCaCertsFile: ca.caFile });
  });
  after(async () => {
    await http.close();
    await receiver.close();
    await inner.close();
    await t.close();
  });

  test('address classification: only public unicast passes', () => {
    for (const ok of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '93.184.216.34'])
      assert.equal(refusalOf(ok), undefined, ok);
    for (const bad of [
      '127.0.0.1',
      '127.255.255.254',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::7f00:1',
      '::',
      '0.0.0.0',
      '169.254.169.254',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '100.64.0.1',
      'fc00::1',
      'fd12::1',
      'fe80::1',
      'ff02::1',
      '224.0.0.1',
      '255.255.255.255',
      '64:ff9b::a00:1',
      '2002:7f00:1::1',
      '192.0.2.1',
    ]) {
      assert.notEqual(refusalOf(bad), undefined, bad);
    }
  });

  test('registration refuses every private form with 400 validation_failed (url_not_allowed)', async () => {
    for (const host of REFUSED_HOSTS.filter((h) => h !== 'loopback.example.test')) {
      const res = await t.request({
        method: 'POST',
        url: '/webhooks',
        headers: { 'x-api-key': sb.apiKey },
        payload: { companyId: sb.companyId, url: `https://${host}:8443/hook` },
      });
      const error = assertError(res, 400, 'validation_failed');
      assert.match(JSON.stringify(error.details), /url_not_allowed/, host);
    }
    // A name whose DNS answer is loopback (this machine's own host name, when it resolves so).
    const own = hostname();
    const answers = await lookup(own, { all: true }).catch(() => []);
    if (answers.length > 0 && answers.every((a) => refusalOf(a.address) !== undefined)) {
      const res = await t.request({
        method: 'POST',
        url: '/webhooks',
        headers: { 'x-api-key': sb.apiKey },
        payload: { companyId: sb.companyId, url: `https://${own}/hook` },
      });
      assertError(res, 400, 'validation_failed');
    }
    // Slack URLs are guarded the same way.
    assertError(
      await t.request({
        method: 'POST',
        url: '/webhooks',
        headers: { 'x-api-key': sb.apiKey },
        payload: { companyId: sb.companyId, url: 'https://169.254.169.254/latest/meta-data', transport: 'slack' },
      }),
      400,
      'validation_failed',
    );
  });

  test('the connector refuses every form at delivery time; nothing reaches a listening receiver', async () => {
    for (const host of REFUSED_HOSTS) {
      const url = `https://${host}:${receiver.port}/hook`;
      await assert.rejects(
        http.send(url, { headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 5_000 }),
        (err: Error) => err instanceof SsrfError || (err as { code?: string }).code === 'ssrf_refused',
        host,
      );
    }
    assert.equal(receiver.received.length, 0);
  });

  test('a redirect from an allowed receiver to a private address is refused', async () => {
    const allowOne = createOutboundHttp({
      policy: { allowPrivate: false, allowAddresses: ['127.0.0.1'], resolve },
      extraCaCertsFile: testCa().caFile,
    });
    try {
      // Control: the allowed receiver itself answers, and a redirect to it is followed.
      receiver.answer = (req) =>
        req.path === '/hook' ? { status: 307, headers: { location: '/final' } } : { status: 200, body: 'done' };
      const ok = await allowOne.send(receiver.url, { headers: {}, body: '{}', timeoutMs: 5_000 });
      assert.equal(ok.status, 200);
      assert.ok(ok.url.endsWith('/final'));

      for (const target of [
        `https://127.0.0.2:${inner.port}/hook`,
        `https://localhost:${inner.port}/hook`,
        `https://[::ffff:127.0.0.2]:${inner.port}/hook`,
        `https://169.254.169.254/latest/meta-data`,
        `https://inner.example.test:${inner.port}/hook`,
        `http://127.0.0.1:${receiver.port}/downgrade`,
      ]) {
        receiver.answer = () => ({ status: 302, headers: { location: target } });
        await assert.rejects(
          allowOne.send(receiver.url, { headers: {}, body: '{}', timeoutMs: 5_000 }),
          (err: Error) => err instanceof SsrfError || (err as { code?: string }).code === 'ssrf_refused',
          target,
        );
      }
      assert.equal(inner.received.length, 0, 'the private target never got a request');
    } finally {
      receiver.answer = () => ({ status: 200 });
      await allowOne.close();
    }
  });
});
