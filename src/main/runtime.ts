import { createRequire } from 'node:module';
import path from 'node:path';
import type { AppContext } from '../app/context.ts';
import { openPool } from '../db/client.ts';
import { type EmbeddedServer, startEmbeddedPostgres } from '../db/embedded.ts';
import { runMigrations } from '../db/migrate.ts';
import { systemClock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { createEncryptor } from '../platform/encryption.ts';
import { idGenerator } from '../platform/ids.ts';
import type { Logger } from '../platform/logger.ts';
import { fileDropMailer } from '../platform/mailer.ts';
import { resolveMasterKey } from '../platform/master-key.ts';
import { argon2Hasher } from '../platform/passwords.ts';

/** The service version, 0.x, from package.json. */
export const SERVICE_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string })
  .version;

export type Runtime = {
  ctx: AppContext;
  databaseUrl: string;
  encryptor: ReturnType<typeof createEncryptor>;
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
  const ctx: AppContext = {
    db: database.db,
    clock: systemClock,
    ids: idGenerator(),
    logger,
    config,
    mailer: fileDropMailer(path.join(config.dataDir, 'outbox')),
    passwords: argon2Hasher,
  };
  return {
    ctx,
    databaseUrl,
    encryptor,
    async close() {
      await database.close();
      await embedded?.stop();
    },
  };
}
