/**
 * OpenTelemetry tracing in the real server process (`npm start` with OTEL_EXPORTER_OTLP_ENDPOINT):
 * spans reach an in-process OTLP/HTTP receiver for the HTTP request (continuing the caller's
 * traceparent), the use case under it, its database queries, the bank-delivery job and an outbound
 * call (the FX rates fetch).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/platform/free-port.ts';
import { freshDatabase } from '../harness.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type Span = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number };
const spans: Span[] = [];
let collector: Server;
let collectorUrl: string;
let server: ChildProcess | undefined;
let output = '';
let database: Awaited<ReturnType<typeof freshDatabase>>;
let base: string;

before(async () => {
  // The OTLP/HTTP JSON receiver, which also serves FX rates (the server's outbound call at start).
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: { scopeSpans: { spans: Span[] }[] }[];
        };
        for (const r of body.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else if (req.url === '/rates') {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ base: 'EUR', rates: { SEK: 11.5 }, asOf: '2026-06-01' }));
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  collectorUrl = `http://127.0.0.1:${(collector.address() as { port: number }).port}`;
  database = await freshDatabase();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, [path.join(ROOT, 'src/main/server.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: database.url,
      MASTER_KEY: randomBytes(32).toString('base64'),
      SANDBOX: 'true',
      PORT: String(port),
      DATA_DIR: path.join(ROOT, '.tmp/tracing-data'),
      DEMO_BANK_DELAY_MS: '60000',
      FX_RATES_URL: `${collectorUrl}/rates`,
      OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
      OTEL_BSP_SCHEDULE_DELAY: '200',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (c) => {
    output += c;
  });
  server.stderr?.on('data', (c) => {
    output += c;
  });
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) throw new Error(`server exited:\n${output}`);
    const up = await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (i > 300) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

after(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  collector.closeAllConnections();
  await new Promise((resolve) => collector.close(resolve));
  await database.drop();
});

async function waitForSpan(match: (s: Span) => boolean, what: string): Promise<Span> {
  for (let i = 0; i < 200; i++) {
    const found = spans.find(match);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`no ${what} span among ${spans.map((s) => s.name).join(', ')}\n${output}`);
}

const SERVER_KIND = 2;
const CLIENT_KIND = 3;

test('spans for the request, the use case, its queries, the delivery job and an outbound call', async () => {
  const provisioned = await fetch(`${base}/sandbox/provision`, { method: 'POST' });
  assert.equal(provisioned.status, 201);
  const sandbox = (await provisioned.json()) as { apiKey: string; firstPayment: { body: unknown } };

  const traceId = randomBytes(16).toString('hex');
  const callerSpan = randomBytes(8).toString('hex');
  const submitted = await fetch(`${base}/journal/payments`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': sandbox.apiKey,
      'idempotency-key': 'traced-1',
      traceparent: `00-${traceId}-${callerSpan}-01`,
    },
    body: JSON.stringify(sandbox.firstPayment.body),
  });
  assert.equal(submitted.status, 201, await submitted.text());

  const request = await waitForSpan((s) => s.name === 'POST /journal/payments', 'HTTP request');
  assert.equal(request.kind, SERVER_KIND);
  assert.equal(request.traceId, traceId, 'the request continues the caller’s trace');
  assert.equal(request.parentSpanId, callerSpan);
  const useCase = await waitForSpan(
    (s) => s.name === 'journal.submit' && s.parentSpanId === request.spanId,
    'use case under the request',
  );
  const query = await waitForSpan(
    (s) => s.traceId === traceId && s.name.startsWith('pg.query') && s.spanId !== useCase.spanId,
    'database query in the submit',
  );
  // The query hangs under the use case (directly, or under a pg-pool connect span of it).
  const ancestors = new Set<string>();
  for (let at: Span | undefined = query; at?.parentSpanId; ) {
    ancestors.add(at.parentSpanId);
    at = spans.find((s) => s.spanId === at?.parentSpanId);
  }
  assert.ok(ancestors.has(useCase.spanId), 'the query is a descendant of the use case span');

  await waitForSpan((s) => s.name === 'job bank-delivery', 'bank-delivery job');
  const outbound = await waitForSpan((s) => s.kind === CLIENT_KIND && s.name.startsWith('GET'), 'outbound HTTP');
  assert.ok(!spans.some((s) => s.name.includes('traced-1')), 'no span is named after request data');
  assert.ok(outbound.traceId.length === 32);
});
