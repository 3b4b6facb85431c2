import { createRequire } from 'node:module';
import path from 'node:path';
import type { AppContext } from '../app/context.ts';
import { openPool } from '../db/client.ts';
import { type EmbeddedServer, startEmbeddedPostgres } from '../db/embedded.ts';
import { type JobQueueHandle, openJobQueue } from '../db/job-queue.ts';
import { runMigrations } from '../db/migrate.ts';
import type { Config } from '../platform/config.ts';
import { createEncryptor } from '../platform/encryption.ts';
import type { Logger } from '../platform/logger.ts';
import { fileDropMailer } from '../platform/mailer.ts';
import { resolveMasterKey } from '../platform/master-key.ts';
import { buildContext } from './context.ts';

/** The service version, 0.x, from package.json. */
export const SERVICE_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string })
  .version;

export type Runtime = {
  ctx: AppContext;
  jobQueue: JobQueueHandle;
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
  let embedded: EmbeddedServer | undefined;
  let databaseUrl = config.databaseUrl;
  if (databaseUrl === undefined) {
    embedded = await startEmbeddedPostgres(config.dataDir, logger);
    databaseUrl = embedded.url;
  }
  const database = openPool(databaseUrl);
  try {
    if (options.migrate !== false) await runMigrations(database.pool);
  } catch (error) {
    await database.close();
    await embedded?.stop();
    throw error;
  }
  const encryptor = createEncryptor(resolveMasterKey(config.masterKey, config.dataDir));
  // Only worker processes supervise queues and fire schedules; every process can enqueue.
  const jobQueue = await openJobQueue(databaseUrl, logger, { supervise: config.role !== 'api' });
  const ctx = buildContext({
    db: database.db,
    config,
    logger,
    jobs: jobQueue.queue,
    encryptor,
    mailer: fileDropMailer(path.join(config.dataDir, 'outbox')),
  });

  return {
    ctx,
    jobQueue,
    async close() {
      await jobQueue.stop();
      await database.close();
      await embedded?.stop();
    },
  };
}
