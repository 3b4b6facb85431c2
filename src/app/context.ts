import type { Db } from '../db/client.ts';
import type { ApiLoad } from '../platform/api-load.ts';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import type { Encryptor } from '../platform/encryption.ts';
import type { IdGenerator } from '../platform/ids.ts';
import type { Logger } from '../platform/logger.ts';
import type { Mailer } from '../platform/mailer.ts';
import type { Metrics } from '../platform/metrics.ts';
import type { PasswordHasher } from '../platform/passwords.ts';
import type { JobQueue } from '../workers/jobs.ts';
import type { SchemaChecker } from './conversion/schema-check.ts';
import type { ChannelFactory } from './delivery/channel-factory.ts';
import type { SandboxBanks } from './sandbox/sandbox-banks.ts';

/** What every use case may use; the composition root (src/main) builds it once per process. */
export type AppContext = {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  config: Config;
  mailer: Mailer;
  passwords: PasswordHasher;
  /** Payload encryption at rest (canonical payments, generated XML, statements). */
  encryptor: Encryptor;
  jobs: JobQueue;
  /** XSD validation of generated pain.001 (`validate=true`). */
  schemaCheck: SchemaChecker;
  /** Bank delivery channels (demo bank, SFTP ...). */
  channels: ChannelFactory;
  /** Counters for GET /metrics (submits, deliveries, webhooks, ingest ...). */
  metrics: Metrics;
  /** A sandbox deployment's bank simulators (op, nordea-fi), when running. */
  sandboxBanks?: SandboxBanks;
  /** ROLE=all: the API's load, which the workers of the process yield to (docs/adr/0083). */
  apiLoad?: ApiLoad;
};
