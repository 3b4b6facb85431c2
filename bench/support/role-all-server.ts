import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/platform/free-port.ts';
import { startReceiver, testCa } from '../../test/webhooks/support.ts';
import { freshDatabase } from './fresh-database.ts';

/**
 * The service as `npm start` runs it by default (src/main/server.ts, ROLE=all: the API and every
 * worker in one process: delivery relay and deliveries, the demo bank and its statements,
 * reconciliation, webhooks) on a fresh database of the server at `adminUrl`, with a sandbox company
 * whose webhook endpoint (all events) is a local HTTPS receiver, so the webhook workers drain the
 * same submits' events. `outbound()` reads the kept counts (a few rows: the observer must not load
 * the machine it measures).
 */
export type RoleAllServer = {
  url: string;
  /** The server process (for its CPU time from /proc). */
  pid: number;
  databaseUrl: string;
  apiKey: string;
  body: unknown;
  /** The company's outbound documents: executed, and in all (those still in flight at the end included). */
  outbound(): Promise<{ executed: number; all: number }>;
  /**
   * Waits until at least `accepted` outbound documents are journaled and every one is executed, or
   * `timeoutS` has passed; answers the counts and the seconds waited.
   */
  executed(accepted: number, timeoutS: number): Promise<{ executed: number; all: number; seconds: number }>;
  webhooksReceived(): number;
  stop(): Promise<void>;
};

export async function startRoleAllServer(
  adminUrl: string,
  demoBankDelayMs: number,
  /** Node flags for the server process (bench:workers-profile: `--cpu-prof`). */
  nodeArgs: string[] = [],
): Promise<RoleAllServer> {
  const database = await freshDatabase(adminUrl, 'payops_bench_all');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'payops-bench-all-'));
  const ca = testCa();
  const receiver = await startReceiver();
  receiver.answer = () => ({ status: 200 });
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, 'src/main/server.ts'], {
    env: {
      ...process.env,
      ROLE: 'all',
      PORT: String(port),
      DATABASE_URL: database.url,
      MASTER_KEY: randomBytes(32).toString('base64'),
      SANDBOX: 'true',
      DEMO_BANK_DELAY_MS: String(demoBankDelayMs),
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      EXTRA_CA_CERTS: ca.caFile,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  const outbound = async () => {
    const { rows } = await pool.query<{ executed: string | null; all: string | null }>(
      `SELECT sum(n) FILTER (WHERE status = 'executed') AS executed, sum(n) AS all
         FROM journal_document_counts WHERE direction = 'outbound'`,
    );
    return { executed: Number(rows[0]?.executed ?? 0), all: Number(rows[0]?.all ?? 0) };
  };
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    await pool.end();
    await receiver.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const url = `http://127.0.0.1:${port}`;
    const until = Date.now() + 180_000;
    while (
      !(await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > until || child.exitCode !== null) throw new Error('the ROLE=all server did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    const sandbox = (await (
      await fetch(`${url}/sandbox/provision`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      })
    ).json()) as { apiKey: string; companyId: string; firstPayment: { body: unknown } };
    const hook = await fetch(`${url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': sandbox.apiKey },
      body: JSON.stringify({ companyId: sandbox.companyId, url: receiver.url }),
    });
    if (hook.status !== 201) throw new Error(`POST /webhooks: ${hook.status} ${await hook.text()}`);
    return {
      url,
      pid: child.pid!,
      databaseUrl: database.url,
      apiKey: sandbox.apiKey,
      body: sandbox.firstPayment.body,
      outbound,
      async executed(accepted, timeoutS) {
        const started = performance.now();
        for (;;) {
          const counts = await outbound();
          const seconds = (performance.now() - started) / 1000;
          if ((counts.all >= accepted && counts.executed >= counts.all) || seconds > timeoutS)
            return { ...counts, seconds };
          await new Promise((r) => setTimeout(r, 250));
        }
      },
      webhooksReceived: () => receiver.received.length,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
