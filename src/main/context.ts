import type { AppContext } from '../app/context.ts';
import { createSchemaChecker } from '../app/conversion/schema-check.ts';
import type { ChannelFactory } from '../app/delivery/channel-factory.ts';
import type { SandboxBanks } from '../app/sandbox/sandbox-banks.ts';
import type { Db } from '../db/client.ts';
import type { ApiLoad } from '../platform/api-load.ts';
import { type Clock, systemClock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import type { Encryptor } from '../platform/encryption.ts';
import { idGenerator } from '../platform/ids.ts';
import type { Logger } from '../platform/logger.ts';
import type { Mailer } from '../platform/mailer.ts';
import { type Metrics, noMetrics } from '../platform/metrics.ts';
import { argon2Hasher } from '../platform/passwords.ts';
import type { JobQueue } from '../workers/jobs.ts';
import { bankChannels, type SimulatorEndpoints } from './channels.ts';
import { demoBank } from './demo-bank.ts';

/** Builds the context every use case receives; tests and benchmarks pass their own clock or mailer. */
export function buildContext(parts: {
  db: Db;
  config: Config;
  logger: Logger;
  jobs: JobQueue;
  encryptor: Encryptor;
  mailer: Mailer;
  clock?: Clock;
  channels?: ChannelFactory;
  metrics?: Metrics;
  /** The sandbox's bank simulators (SANDBOX=true): issue activations, and the channels reach them. */
  sandboxBanks?: SandboxBanks & {
    endpoints(bankKey: string): SimulatorEndpoints | undefined;
    ebics?(bankKey: string): { url: string; caPem: string } | undefined;
  };
  softwareId?: string;
  apiLoad?: ApiLoad;
}): AppContext {
  const clock = parts.clock ?? systemClock;
  return {
    db: parts.db,
    clock,
    ids: idGenerator(() => clock.now().getTime()),
    logger: parts.logger,
    config: parts.config,
    mailer: parts.mailer,
    passwords: argon2Hasher,
    encryptor: parts.encryptor,
    jobs: parts.jobs,
    schemaCheck: createSchemaChecker(parts.config.xsdDir),
    channels:
      parts.channels ??
      bankChannels({
        allowPrivateTargets: parts.config.webhookAllowPrivateTargets,
        logger: parts.logger,
        extraCaCerts: parts.config.extraCaCerts,
        ...(parts.sandboxBanks ? { simulators: parts.sandboxBanks } : {}),
        softwareId: parts.softwareId ?? 'payops',
        now: () => clock.now(),
        demoBank: demoBank({ db: parts.db, jobs: parts.jobs, clock, delayMs: parts.config.demoBankDelayMs }),
      }),
    metrics: parts.metrics ?? noMetrics,
    ...(parts.sandboxBanks ? { sandboxBanks: parts.sandboxBanks } : {}),
    ...(parts.apiLoad ? { apiLoad: parts.apiLoad } : {}),
  };
}
