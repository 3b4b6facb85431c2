/**
 * `npm start`: the API and the workers in one process (ROLE=all), or either alone. Without
 * DATABASE_URL it starts an embedded PostgreSQL under DATA_DIR and stops it on SIGTERM/SIGINT.
 * /metrics is served on the API port, or with /health and /ready on METRICS_PORT when that is set
 * (the only listener of a ROLE=worker process).
 */
import './instrument.ts';
import type { FastifyInstance } from 'fastify';
import { warmFileWorker } from '../app/bank-files/file-worker.ts';
import { fxRatesProvider } from '../app/system/fx-rates.ts';
import { buildApp } from '../http/app.ts';
import { buildOpsApp } from '../http/ops-app.ts';
import type { HttpServices } from '../http/services.ts';
import { ConfigError, loadConfig } from '../platform/config.ts';
import { createLogger } from '../platform/logger.ts';
import { stopTracing } from '../platform/tracing.ts';
import { startWorkers } from '../workers/runner.ts';
import { traceJobs } from '../workers/traced-jobs.ts';
import { openRuntime, type Runtime, SERVICE_VERSION } from './runtime.ts';
import { startupFailureLine } from './startup-failure.ts';

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  throw error;
}

const logger = createLogger(config.logLevel);
const started = Date.now();

// Signals are taken from the start and for good: a SIGTERM while the embedded PostgreSQL starts or
// the migrations run, or a second Ctrl-C (npm and the terminal both send one), would otherwise end
// the process at once and leave PostgreSQL running. One that arrives during start-up is acted on
// as soon as start-up is done.
let onSignal: ((signal: NodeJS.Signals) => void) | undefined;
let pendingSignal: NodeJS.Signals | undefined;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (onSignal) onSignal(signal);
    else pendingSignal ??= signal;
  });
}
/** A start that cannot go on: one line on stderr saying why (the detail at debug level), exit 1. */
function failStart(error: unknown): never {
  logger.debug({ err: error }, 'start-up failed');
  process.stderr.write(`payops: cannot start: ${startupFailureLine(error, config)}\n`);
  process.exit(1);
}

let runtime: Runtime;
try {
  runtime = await openRuntime(config, logger);
} catch (error) {
  failStart(error);
}
const fx = fxRatesProvider(config.fxRatesUrl, logger);

const metricsEndpoint = { render: () => runtime.metrics.render(), token: config.metricsToken };
const services: HttpServices = {
  ctx: runtime.ctx,
  fx,
  version: SERVICE_VERSION,
  ...(runtime.workers ? { workers: runtime.workers } : {}),
};
let app: FastifyInstance | undefined;
let opsApp: FastifyInstance | undefined;
try {
  app =
    config.role === 'worker'
      ? undefined
      : await buildApp(config.metricsPort === undefined ? { ...services, metrics: metricsEndpoint } : services);
  opsApp = config.metricsPort === undefined ? undefined : await buildOpsApp({ ...services, metrics: metricsEndpoint });
  if (config.role !== 'api') {
    await startWorkers(runtime.ctx, traceJobs(runtime.jobQueue.boss));
    runtime.workers?.started(runtime.jobQueue.boss);
  }
  if (app) {
    fx.start();
    await app.listen({ port: config.port, host: config.host });
  }
  await opsApp?.listen({ port: config.metricsPort ?? 0, host: config.host });
  // The ingest's file worker starts on first use; its modules are made ready now, a little at a time.
  void warmFileWorker();
} catch (error) {
  // The database (an embedded one above all) is stopped before exiting, never left behind.
  fx.stop();
  await app?.close().catch(() => {});
  await opsApp?.close().catch(() => {});
  await runtime.close().catch((err: unknown) => logger.error({ err }, 'error while stopping after a failed start'));
  failStart(error);
}
logger.info(
  {
    role: config.role,
    sandbox: config.sandbox,
    embedded: config.databaseUrl === undefined,
    metricsPort: config.metricsPort ?? null,
    tracing: config.otlpEndpoint !== undefined,
    readyInMs: Date.now() - started,
  },
  'service ready',
);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  const force = setTimeout(() => {
    logger.error('shutdown took too long; exiting');
    process.exit(1);
  }, 20_000);
  force.unref();
  try {
    fx.stop();
    runtime.workers?.stopped();
    await app?.close();
    await opsApp?.close();
    // Closing the runtime stops the job queue (waiting for running jobs), then the database.
    await runtime.close();
    await stopTracing();
    logger.info('stopped');
  } catch (err) {
    logger.error({ err }, 'error during shutdown');
    process.exitCode = 1;
  }
  clearTimeout(force);
}

onSignal = (signal) => void shutdown(signal);
if (pendingSignal) onSignal(pendingSignal);
