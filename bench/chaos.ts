/**
 * `npm run bench:chaos`: the chaos test (test/delivery/chaos.test.ts) at length: CHAOS_PAYMENTS
 * (default 1000) payments while CHAOS_KILLS (default 30) worker processes are killed with SIGKILL
 * at random and replaced, CHAOS_SEED (default: the time) for the randomness, CHAOS_WORKERS (default
 * 2) alive at once. Same assertions as the suite's short run; the seed is printed so a failure can
 * be repeated. Embedded PostgreSQL, or DATABASE_URL.
 */
import { spawn } from 'node:child_process';

const env = {
  ...process.env,
  CHAOS_PAYMENTS: process.env.CHAOS_PAYMENTS ?? '1000',
  CHAOS_KILLS: process.env.CHAOS_KILLS ?? '30',
  CHAOS_SEED: process.env.CHAOS_SEED ?? String(Date.now() % 1_000_000),
  CHAOS_WORKERS: process.env.CHAOS_WORKERS ?? '2',
  CHAOS_SETTLE_MS: process.env.CHAOS_SETTLE_MS ?? '900000',
};
process.stdout.write(
  `chaos: ${env.CHAOS_PAYMENTS} payments, ${env.CHAOS_KILLS} kills, ${env.CHAOS_WORKERS} workers, seed ${env.CHAOS_SEED}\n`,
);
const child = spawn(process.execPath, ['scripts/test.ts', 'test/delivery/chaos.test.ts'], { env, stdio: 'inherit' });
child.on('exit', (code) => process.exit(code ?? 1));
