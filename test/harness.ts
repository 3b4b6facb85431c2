/**
 * Test harness: the real app on a real PostgreSQL. Each test file gets a fresh database cloned from
 * the run's migrated template (scripts/test.ts), so files run in parallel.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import type { AppContext } from '../src/app/context.ts';
import { fxRatesProvider } from '../src/app/system/fx-rates.ts';
import { openPool } from '../src/db/client.ts';
import { buildApp } from '../src/http/app.ts';
import { buildContext } from '../src/main/context.ts';
import { processMetrics, registerOperationsGauges, withHeartbeat } from '../src/main/observability.ts';
import { SERVICE_VERSION } from '../src/main/runtime.ts';
import { type RunningSandboxBanks, startSandboxBanks } from '../src/main/sandbox-banks.ts';
import { type Clock, systemClock } from '../src/platform/clock.ts';
import { loadConfig } from '../src/platform/config.ts';
import { createEncryptor } from '../src/platform/encryption.ts';
import { createLogger, type Logger } from '../src/platform/logger.ts';
import type { Mail, Mailer } from '../src/platform/mailer.ts';
import { noMetrics } from '../src/platform/metrics.ts';
import type { PrometheusMetrics } from '../src/platform/prometheus.ts';
import { createWorkerHealth } from '../src/workers/health.ts';
import { type JobQueueHandle, openJobQueue } from '../src/workers/job-queue.ts';
import { startWorkers } from '../src/workers/runner.ts';
import { responseChecker } from './support/openapi-responses.ts';

function runEnv(): { adminUrl: string; template: string; runId: string } {
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL;
  const template = process.env.TEST_TEMPLATE_DATABASE;
  const runId = process.env.TEST_RUN_ID;
  if (!adminUrl || !template || !runId) throw new Error('integration tests run through `npm test` (scripts/test.ts)');
  return { adminUrl, template, runId };
}

/** A fresh database cloned from the migrated template; `drop()` removes it. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const { adminUrl, template, runId } = runEnv();
  const name = `payops_t_${runId}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      break;
    } catch (error) {
      // Two clones starting at the same instant can find the template busy; try again shortly.
      if (attempt >= 20 || !String(error).includes('being accessed')) throw error;
      await new Promise((r) => setTimeout(r, 100 + attempt * 50));
    }
  }
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export type TestApp = {
  app: FastifyInstance;
  ctx: AppContext;
  jobQueue: JobQueueHandle;
  /** The app's Prometheus registry when started with `metrics: true`. */
  metrics: PrometheusMetrics | undefined;
  mails: Mail[];
  databaseUrl: string;
  /** The sandbox's bank simulators, when started (`sandboxBanks: true`). */
  banks: RunningSandboxBanks | undefined;
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
};

export type TestAppOptions = {
  clock?: Clock;
  env?: Record<string, string>;
  /** A logger of the test's own (for example writing to a captured destination); silent otherwise. */
  logger?: Logger;
  /** Run the job handlers in this process (conversion jobs, retention ...); /ready then reports on them. */
  workers?: boolean;
  /** Count into a Prometheus registry served at /metrics (METRICS_TOKEN from `env` guards it). */
  metrics?: boolean;
  /** Start the sandbox's OP and Nordea bank simulators (on the test's clock), as a sandbox deployment does. */
  sandboxBanks?: boolean;
  /** Another app's database (its `databaseUrl`): a second API process on the same database, which it does not drop. */
  databaseUrl?: string;
};

let ipCounter = 0;
/** A distinct client address (for `remoteAddress`), so per-IP rate limits do not couple tests. */
export function nextIp(): string {
  ipCounter++;
  return `10.${(process.pid >> 8) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

/** The whole app on its own database, with a mailer that keeps what it sends. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.databaseUrl ? { url: options.databaseUrl, drop: async () => {} } : await freshDatabase();
  const config = loadConfig({
    DATABASE_URL: database.url,
    MASTER_KEY: randomBytes(32).toString('base64'),
    SANDBOX: 'true',
    LOG_LEVEL: 'silent',
    DATA_DIR: '.tmp/test-data',
    ...options.env,
  });
  const pool = openPool(database.url, 5);
  const mails: Mail[] = [];
  const mailer: Mailer = { send: async (mail) => void mails.push(mail) };
  const logger = options.logger ?? createLogger((process.env.TEST_LOG_LEVEL ?? 'silent') as 'silent');
  // Enqueue-only by default; `workers: true` also runs the job handlers, as a worker process would.
  const jobQueue = await openJobQueue(database.url, logger, { supervise: options.workers ?? false });
  const prom = options.metrics ? processMetrics({ version: SERVICE_VERSION, role: config.role }) : undefined;
  const health = options.workers
    ? createWorkerHealth(options.clock ?? systemClock, config.workerStallSeconds * 1000)
    : undefined;
  const portMetrics = prom?.metrics ?? noMetrics;
  const clock = options.clock;
  const banks = options.sandboxBanks
    ? startSandboxBanks({ logger, ...(clock ? { now: () => clock.now() } : {}) })
    : undefined;
  await banks?.ready();
  const ctx = buildContext({
    db: pool.db,
    config,
    logger,
    jobs: jobQueue.queue,
    encryptor: createEncryptor(Buffer.from(config.masterKey ?? '', 'base64')),
    mailer,
    ...(options.clock ? { clock: options.clock } : {}),
    metrics: health ? withHeartbeat(portMetrics, health.beat) : portMetrics,
    ...(banks ? { sandboxBanks: banks } : {}),
  });
  if (prom) registerOperationsGauges(prom, ctx, pool.pool);
  if (health) {
    await startWorkers(ctx, jobQueue.boss);
    health.started(jobQueue.boss);
  }

  const app = await buildApp({
    ctx,
    fx: fxRatesProvider(undefined, ctx.logger),
    version: SERVICE_VERSION,
    ...(health ? { workers: health } : {}),
    ...(prom ? { metrics: { render: () => prom.render(), token: config.metricsToken } } : {}),
  });
  // The route each response came from, for the check against /openapi.json (support/openapi-responses.ts).
  const routeOf = new WeakMap<object, string>();
  app.addHook('onSend', async (request, _reply, payload) => {
    if (request.routeOptions.url) routeOf.set(request.raw, request.routeOptions.url);
    return payload;
  });
  await app.ready();
  const checkResponse = responseChecker(app);
  return {
    app,
    ctx,
    jobQueue,
    metrics: prom,
    mails,
    databaseUrl: database.url,
    banks,
    request: async (opts) => {
      const res = await app.inject(opts);
      checkResponse(res, routeOf.get(res.raw.req));
      return res;
    },
    async close() {
      await app.close();
      await jobQueue.stop();
      await banks?.close();
      await pool.close();
      await database.drop();
    },
  };
}

/** A user of the sandbox's company made by its admin through POST /users (asserted 201); the new user's id. */
export async function addCompanyUser(
  t: TestApp,
  sandbox: Pick<Sandbox, 'sessionToken' | 'platformId' | 'companyId'>,
  user: { email: string; name: string; roles: string[]; password: string },
): Promise<string> {
  const created = await t.request({
    method: 'POST',
    url: '/users',
    headers: { 'x-session-token': sandbox.sessionToken },
    payload: { platformId: sandbox.platformId, companyId: sandbox.companyId, ...user },
  });
  assert.equal(created.statusCode, 201, created.body);
  return (created.json() as { id: string }).id;
}

type Sandbox = Awaited<ReturnType<typeof provisionAndLogin>>;

/**
 * Provisions a sandbox through the real route and signs its admin in. Each call comes from its own
 * client address, so the per-IP provisioning limit (5 an hour) does not cap how many a file makes.
 */
export async function provisionAndLogin(t: TestApp, remoteAddress = nextIp()) {
  const provisioned = await t.request({ method: 'POST', url: '/sandbox/provision', payload: {}, remoteAddress });
  if (provisioned.statusCode !== 201) throw new Error(`provision failed: ${provisioned.body}`);
  const sandbox = provisioned.json() as {
    apiKey: string;
    companyId: string;
    platformId: string;
    dashboardLogin: { url: string; email: string; password: string };
    /** A complete, valid POST /journal/payments request to the demo bank (test environment). */
    firstPayment: {
      headers: Record<string, string>;
      body: { payment: Record<string, unknown> } & Record<string, unknown>;
    };
  };
  const login = await t.request({
    method: 'POST',
    url: '/auth/login',
    payload: { email: sandbox.dashboardLogin.email, password: sandbox.dashboardLogin.password },
    remoteAddress,
  });
  if (login.statusCode !== 200) throw new Error(`login failed: ${login.body}`);
  return { ...sandbox, sessionToken: (login.json() as { sessionToken: string }).sessionToken };
}

type Response = { statusCode: number; body: string; json(): unknown };

/** The parsed body, typed as the test expects it (asserted field by field by the caller). */
export function body<T = Record<string, unknown>>(res: Response): T {
  return res.json() as T;
}

export type ErrorBody = { code: string; message: string; details?: Record<string, unknown> };

/**
 * Asserts the contract's error envelope exactly: status, `{error: {code, message[, details]}}` and
 * nothing else, a non-empty message and no stack trace. Answers the inner error for further checks.
 */
export function assertError(res: Response, status: number, code: string): ErrorBody {
  assert.equal(res.statusCode, status, `expected ${status} ${code}, got ${res.statusCode}: ${res.body}`);
  const parsed = res.json() as { error: ErrorBody };
  assert.deepEqual(Object.keys(parsed), ['error'], res.body);
  const keys = Object.keys(parsed.error).sort();
  assert.ok(
    JSON.stringify(keys) === '["code","message"]' || JSON.stringify(keys) === '["code","details","message"]',
    `unexpected error keys ${keys.join(', ')}`,
  );
  assert.equal(parsed.error.code, code, res.body);
  assert.equal(typeof parsed.error.message, 'string');
  assert.ok(parsed.error.message.length > 0);
  if (parsed.error.details !== undefined) assert.equal(typeof parsed.error.details, 'object');
  assert.doesNotMatch(res.body, /\bat .+\.(ts|js):\d+/, 'no stack trace in an error body');
  return parsed.error;
}

/**
 * Makes a provisioned (sandbox-only) company like one made on a deployment that is not a sandbox, so
 * a test can create its production connections (DESIGN.md: sandbox-only companies refuse them).
 */
export async function allowProductionConnections(t: TestApp, companyId: string): Promise<void> {
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try {
    await client.query('UPDATE companies SET sandbox_only = false WHERE id = $1', [companyId]);
  } finally {
    await client.end();
  }
}
