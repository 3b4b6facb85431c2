/**
 * `npm run bench:http`: requests per second and p50/p99 latency of GET /health and of an
 * authenticated GET (API key) on the real app and a real PostgreSQL, at 1 and 32 connections, next to
 * a bare Fastify route measured in the same run. The servers run in a child process so the load
 * generator (autocannon) does not share their event loop; on a 2-core machine they still share CPUs.
 * The delivery relay runs in the server process during the submit rows, as in the default ROLE=all.
 * The last row (BENCH_WORKERS_ROW=off skips it) submits to the service as `npm start` runs it, every
 * worker in the process (delivery, demo bank, reconciliation, webhooks to a local receiver), on a fresh
 * database, and adds the seconds from the last submit until every accepted payment is executed.
 */
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { firstJsonLine } from './support/child-line.ts';
import { startRoleAllServer } from './support/role-all-server.ts';
import { submitRequests } from './support/submit-requests.ts';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
/** The demo bank's answer delay in the workers row (as bench:pipeline's default). */
const DEMO_BANK_DELAY_MS = Number(process.env.DEMO_BANK_DELAY_MS ?? 1000);
/** The workers row gives up waiting for the executions this long after the last submit. */
const DRAIN_TIMEOUT_S = Number(process.env.BENCH_DRAIN_TIMEOUT_S ?? 300);

async function serve(): Promise<void> {
  const Fastify = (await import('fastify')).default;
  const { startBenchApp } = await import('./support/bench-app.ts');
  const bench = await startBenchApp();
  const { app } = bench;
  const provisioned = await app.inject({ method: 'POST', url: '/sandbox/provision', payload: {} });
  const { apiKey, companyId, firstPayment } = provisioned.json() as {
    apiKey: string;
    companyId: string;
    firstPayment: { body: unknown };
  };
  // More sandboxes (each its own company and key) for the many-company submit row.
  const tenants: Array<{ apiKey: string; body: unknown }> = [];
  for (let i = 0; i < 32; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/sandbox/provision',
      payload: {},
      remoteAddress: `10.200.${i}.1`,
    });
    const sb = res.json() as { apiKey: string; firstPayment: { body: unknown } };
    tenants.push({ apiKey: sb.apiKey, body: sb.firstPayment.body });
  }
  // The delivery relay runs beside the API, as in the default ROLE=all process: every journaled
  // host-to-host document gets its delivery job during the measurement (deliveries themselves do not
  // run, so the demo bank does not answer).
  const { relayQueuedDeliveries } = await import('../src/app/delivery/relay.ts');
  const { startPollingLoop } = await import('../src/workers/polling-loop.ts');
  const relay =
    process.env.BENCH_RELAY === 'off'
      ? { stop: async () => {} }
      : startPollingLoop(bench.ctx, 'delivery relay', async () => (await relayQueuedDeliveries(bench.ctx)) > 0, 100);
  await app.listen({ port: 0, host: '127.0.0.1' });

  const bare = Fastify();
  bare.get('/hello', async () => ({ hello: 'world' }));
  await bare.listen({ port: 0, host: '127.0.0.1' });

  const port = (s: { server: { address(): unknown } }) => (s.server.address() as { port: number }).port;
  process.stdout.write(
    `${JSON.stringify({ app: port(app), bare: port(bare), apiKey, companyId, submitBody: firstPayment.body, tenants, databaseUrl: bench.databaseUrl })}\n`,
  );
  process.stdin.resume();
  process.stdin.on('end', async () => {
    await relay.stop();
    const queued = await bench.ctx.db.$client.query(
      `SELECT (SELECT count(*) FROM delivery_requests)::int AS pending,
              (SELECT count(*) FROM journal_documents WHERE delivery_status = 'queued')::int AS documents`,
    );
    process.stderr.write(`relay: ${JSON.stringify(queued.rows[0])} (queued documents without a job / in all)\n`);
    await bare.close();
    await bench.close();
    process.exit(0);
  });
}

/**
 * POST /journal/payments with the sandbox's one-transaction payment (demo bank, host-to-host, test
 * environment, so neither the billing gates nor the rate limit apply): every request gets its own
 * Idempotency-Key and payment.messageId, so each one journals a new document.
 */
async function measureSubmit(
  url: string,
  connections: number,
  tenants: Array<{ apiKey: string; body: unknown }>,
  runId: string,
  label = '',
) {
  const result = await autocannon({
    url,
    connections,
    duration: DURATION_S,
    requests: submitRequests(tenants, `${runId}-${connections}`),
  });
  return {
    name: `POST /journal/payments (1 transaction, new key each, ${tenants.length === 1 ? 'one company' : `${tenants.length} companies`}${label})`,
    connections,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    accepted: result['2xx'],
  } satisfies Row & { accepted: number };
}

type Row = {
  name: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Seconds from the last submit until every accepted payment was executed (the workers row). */
  executedAfter?: string;
};

/**
 * The workers row: 32 connections of submits to a ROLE=all process, then the wait until the demo
 * bank executed every accepted payment (its statements booked through reconciliation) and the webhook
 * receiver's count at that moment.
 */
async function measureWithWorkers(adminUrl: string): Promise<Row> {
  const server = await startRoleAllServer(adminUrl, DEMO_BANK_DELAY_MS);
  try {
    // Give the workers time to start before the clock runs (as bench:pipeline).
    await new Promise((r) => setTimeout(r, 3000));
    const row = await measureSubmit(
      `${server.url}/journal/payments`,
      32,
      [{ apiKey: server.apiKey, body: server.body }],
      `${Date.now().toString(36)}w`,
      ', workers running (ROLE=all)',
    );
    // autocannon counts the answers it waited for; requests still in flight when it stopped are
    // journaled too, so the wait is for every outbound document of the company.
    const counts = await server.executed(row.accepted, DRAIN_TIMEOUT_S);
    const seconds = counts.seconds.toFixed(1);
    process.stderr.write(
      `workers row: ${row.accepted} answered, ${counts.executed} of ${counts.all} journaled executed ${seconds} s after the last submit, ${server.webhooksReceived()} webhook deliveries received\n`,
    );
    const { accepted: _, ...rest } = row;
    const all = counts.executed >= counts.all;
    return { ...rest, executedAfter: all ? seconds : `not all after ${seconds} (${counts.executed}/${counts.all})` };
  } finally {
    await server.stop();
  }
}

async function measure(name: string, url: string, connections: number, headers: Record<string, string> = {}) {
  const result = await autocannon({ url, connections, duration: DURATION_S, headers });
  const non2xx = result.non2xx + result.errors;
  return {
    name,
    connections,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: non2xx,
  } satisfies Row;
}

async function main(): Promise<void> {
  const child = spawn(process.execPath, [import.meta.filename, '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const ports: {
    app: number;
    bare: number;
    apiKey: string;
    companyId: string;
    submitBody: unknown;
    tenants: Array<{ apiKey: string; body: unknown }>;
    databaseUrl: string;
  } = await firstJsonLine(child);
  const rows: Row[] = [];
  // BENCH_ROWS=submit measures the submit rows only; BENCH_ROWS=workers the workers row only.
  const only = process.env.BENCH_ROWS;
  for (const connections of only === 'submit' || only === 'workers' ? [] : [1, 32]) {
    rows.push(await measure('bare Fastify GET /hello', `http://127.0.0.1:${ports.bare}/hello`, connections));
    rows.push(await measure('GET /health', `http://127.0.0.1:${ports.app}/health`, connections));
    rows.push(
      await measure(
        'GET /banks/demo/payment-types (API key)',
        `http://127.0.0.1:${ports.app}/banks/demo/payment-types`,
        connections,
        {
          'x-api-key': ports.apiKey,
        },
      ),
    );
  }
  const runId = Date.now().toString(36);
  const submitUrl = `http://127.0.0.1:${ports.app}/journal/payments`;
  const one = [{ apiKey: ports.apiKey, body: ports.submitBody }];
  if (only !== 'workers') {
    for (const connections of [1, 32]) rows.push(await measureSubmit(submitUrl, connections, one, runId));
    rows.push(await measureSubmit(submitUrl, 32, ports.tenants, `${runId}m`));
  }
  // The relay-only server is idle from here on (its relay has nothing left to queue).
  if (process.env.BENCH_WORKERS_ROW !== 'off') rows.push(await measureWithWorkers(ports.databaseUrl));
  child.stdin.end();
  process.stdout.write(`\nHTTP benchmark, ${DURATION_S} s per row (autocannon and servers share this machine)\n\n`);
  process.stdout.write(
    '| route | connections | req/s | p50 ms | p99 ms | non-2xx/errors | executed, s after the last submit |\n|---|---|---|---|---|---|---|\n',
  );
  for (const r of rows)
    process.stdout.write(
      `| ${r.name} | ${r.connections} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.executedAfter ?? ''} |\n`,
    );
}

if (process.argv.includes('--serve')) await serve();
else await main();
