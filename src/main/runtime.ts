import { createRequire } from 'node:module';
import path from 'node:path';
import type { AppContext } from '../app/context.ts';
import { sealWebhookDestinations } from '../app/system/seal-destinations.ts';
import { openPool } from '../db/client.ts';
import { type EmbeddedServer, startEmbeddedPostgres } from '../db/embedded.ts';
import { runMigrations } from '../db/migrate.ts';
import { apiLoad } from '../platform/api-load.ts';
import { systemClock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { fileDropMailer } from '../platform/mailer.ts';
import { encryptorFor } from '../platform/master-key.ts';
import type { PrometheusMetrics } from '../platform/prometheus.ts';
import { createWorkerHealth, type WorkerHealth } from '../workers/health.ts';
import { type JobQueueHandle, openJobQueue } from '../workers/job-queue.ts';
import { buildContext } from './context.ts';
import { processMetrics, registerOperationsGauges, withHeartbeat } from './observability.ts';
import { type RunningSandboxBanks, startSandboxBanks } from './sandbox-banks.ts';

/** The service version, 0.x, from package.json. */
export const SERVICE_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string })
  .version;

export type Runtime = {
  ctx: AppContext;
  jobQueue: JobQueueHandle;
  /** The process's metrics registry, rendered by GET /metrics. */
  metrics: PrometheusMetrics;
  /** The workers' liveness for /ready, in a process that runs them (ROLE=worker|all). */
  workers: WorkerHealth | undefined;
  close(): Promise<void>;
};

/**
 * Opens the database (the embedded server unless DATABASE_URL is set), runs migrations under the
 * advisory lock, and builds the context every use case receives.
 */
export async function openRuntime(
  config: Config,
  logger: Logger,
  options: { migrate?: boolean } = {},
): Promise<Runtime> {
  const encryptor = encryptorFor(config);
  let embedded: EmbeddedServer | undefined;
  let databaseUrl = config.databaseUrl;
  if (databaseUrl === undefined) {
    embedded = await startEmbeddedPostgres(config.dataDir, logger);
    databaseUrl = embedded.url;
  }
  const database = openPool(databaseUrl);
  try {
    if (options.migrate !== false) {
      await runMigrations(database.pool);
      // Destinations written before they were sealed at rest (migration 0018) are sealed now.
      const sealed = await sealWebhookDestinations({ db: database.db, encryptor });
      if (sealed > 0) logger.info({ sealed }, 'webhook destinations sealed at rest');
    }
  } catch (error) {
    await database.close();
    await embedded?.stop();
    throw error;
  }
  // Only worker processes supervise queues and fire schedules; every process can enqueue.
  const jobQueue = await openJobQueue(databaseUrl, logger, {
    supervise: config.role !== 'api',
    leaseSeconds: config.jobLeaseSeconds,
  });
  const metrics = processMetrics({ version: SERVICE_VERSION, role: config.role });
  const workers = config.role === 'api' ? undefined : createWorkerHealth(systemClock, config.workerStallSeconds * 1000);
  // A sandbox runs its own simulated web-services banks (op, nordea-fi) beside the demo bank.
  let sandboxBanks: RunningSandboxBanks | undefined;
  if (config.sandbox) {
    sandboxBanks = startSandboxBanks({ stateDir: path.join(config.dataDir, 'bank-simulators'), logger });
  }
  const ctx = buildContext({
    db: database.db,
    config,
    logger,
    jobs: jobQueue.queue,
    encryptor,
    mailer: fileDropMailer(path.join(config.dataDir, 'outbox'), config.smtpFrom),
    metrics: workers ? withHeartbeat(metrics.metrics, workers.beat) : metrics.metrics,
    ...(sandboxBanks ? { sandboxBanks } : {}),
    softwareId: `payops ${SERVICE_VERSION}`,
    // One process serving the API and running the workers: the workers yield to a burst of requests.
    ...(config.role === 'all' ? { apiLoad: apiLoad() } : {}),
  });
  registerOperationsGauges(metrics, ctx, database.pool);

  return {
    ctx,
    jobQueue,
    metrics,
    workers,
    async close() {
      await jobQueue.stop();
      await sandboxBanks?.close();
      await database.close();
      await embedded?.stop();
    },
  };
}
