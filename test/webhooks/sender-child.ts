/**
 * A webhook worker in its own process, for the kill test and the benchmark: `once` claims and sends
 * one batch; `loop` runs the worker loop until killed. Env: DATABASE_URL, MASTER_KEY, EXTRA_CA_CERTS.
 */
import { runWebhookCycle, sendDueDeliveries } from '../../src/app/webhooks/send.ts';
import { createWebhookTransports } from '../../src/app/webhooks/transports.ts';
import { openPool } from '../../src/db/client.ts';
import { buildContext } from '../../src/main/context.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { createEncryptor } from '../../src/platform/encryption.ts';
import { createLogger } from '../../src/platform/logger.ts';

const mode = process.argv[2] ?? 'once';
const config = loadConfig({ ...process.env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'silent' });
const pool = openPool(config.databaseUrl!, 4);
const ctx = buildContext({
  db: pool.db,
  config,
  logger: createLogger('silent'),
  jobs: { send: async () => null },
  encryptor: createEncryptor(Buffer.from(config.masterKey!, 'base64')),
  mailer: { send: async () => {} },
});
const transports = createWebhookTransports(ctx);
process.stdout.write('ready\n');
if (mode === 'once') {
  const n = await sendDueDeliveries(ctx, transports);
  process.stdout.write(`sent ${n}\n`);
} else {
  for (;;) {
    const busy = await runWebhookCycle(ctx, transports);
    if (!busy) await new Promise((r) => setTimeout(r, 20));
  }
}
await transports.close();
await pool.close();
