/** `npm run migrate`: applies pending migrations and exits (safe to run beside running services). */
import { loadConfig } from '../platform/config.ts';
import { createLogger } from '../platform/logger.ts';
import { openRuntime } from './runtime.ts';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const runtime = await openRuntime(config, logger);
logger.info('migrations applied');
await runtime.close();
