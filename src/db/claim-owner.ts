import { randomInt } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../platform/logger.ts';

/**
 * The advisory-lock namespace of claim owners (the two-key form: apart from the one-key locks of the
 * migrations and the submit claims). 0x636c6d00: "clm".
 */
export const CLAIM_OWNER_NAMESPACE = 0x636c6d00;

/**
 * A worker process's claim owner (docs/adr/0059): one connection of its own, outside the pool, that
 * holds a session-level advisory lock on a key of its own for as long as it lives. The process's
 * claims (delivery_claims) carry that key; when the process dies, or this connection does,
 * PostgreSQL releases the lock, and other processes see the claims as abandoned at once. After a
 * lost connection the owner takes a new key on a new connection, so the claims made under the old
 * one (their outcome unknown) are taken up again too.
 */
export type ClaimOwner = {
  /** The key claims are made under now; undefined while the owner's connection is down. */
  key(): number | undefined;
  /** Milliseconds the current key has been held (0 while down). */
  heldMs(): number;
  /** Settles once the first key is held (or the owner is stopped first). */
  held(): Promise<void>;
  stop(): Promise<void>;
};

const RECONNECT_MS = [250, 500, 1_000, 2_000];
/** A query on the owner's connection this often: a connection that went away silently is found. */
const PROBE_MS = 5_000;

/** Holds a claim owner on a connection made with the pool's own settings (its URL and timeouts). */
export function holdClaimOwner(pool: pg.Pool, logger: Logger): ClaimOwner {
  let current: { key: number; since: number } | undefined;
  let client: pg.Client | undefined;
  let stopped = false;
  let probe: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;
  let firstHeld: () => void = () => {};
  const first = new Promise<void>((resolve) => {
    firstHeld = resolve;
  });

  const lost = (err?: unknown) => {
    if (probe) clearInterval(probe);
    probe = undefined;
    const had = current;
    current = undefined;
    const gone = client;
    client = undefined;
    gone?.end().catch(() => {});
    if (stopped) return;
    if (had) logger.warn({ err, ownerKey: had.key }, 'claim owner connection lost; reconnecting');
    const wait = RECONNECT_MS[Math.min(failures++, RECONNECT_MS.length - 1)]!;
    retry = setTimeout(() => void connect(), wait);
    retry.unref();
  };

  const connect = async () => {
    const c = new pg.Client(pool.options);
    client = c;
    c.on('error', (err) => {
      if (client === c) lost(err);
    });
    try {
      await c.connect();
      // A key no other live process holds (a clash is rare; another draw settles it).
      for (;;) {
        const key = randomInt(1, 2 ** 31 - 1);
        const got = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [
          CLAIM_OWNER_NAMESPACE,
          key,
        ]);
        if (got.rows[0]?.ok) {
          current = { key, since: Date.now() };
          firstHeld();
          break;
        }
      }
      if (stopped || client !== c) return;
      failures = 0;
      logger.info({ ownerKey: current.key }, 'claim owner holds its key');
      probe = setInterval(() => {
        c.query('SELECT 1').catch((err: unknown) => {
          if (client === c) lost(err);
        });
      }, PROBE_MS);
      probe.unref();
    } catch (err) {
      if (client === c) lost(err);
    }
  };
  void connect();

  return {
    key: () => current?.key,
    heldMs: () => (current ? Date.now() - current.since : 0),
    held: () => first,
    async stop() {
      stopped = true;
      firstHeld();
      if (retry) clearTimeout(retry);
      if (probe) clearInterval(probe);
      const c = client;
      client = undefined;
      current = undefined;
      await c?.end().catch(() => {});
    },
  };
}
