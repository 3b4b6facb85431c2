import type { Db } from '../../db/client.ts';
import { type Listening, listenOn } from '../../db/listen.ts';
import type { AppContext } from '../context.ts';

/** The channel src/db/functions/090_api_key_revoked_notify.sql notifies, with the key's id. */
const CHANNEL = 'api_key_revoked';

/**
 * Whether this process hears every revocation as it commits (docs/adr/0049): only then may it answer
 * a key from the keys it found active. `epoch` moves with every revocation heard and every change of
 * `live`, so a lookup that spanned one does not remember what it found.
 */
export type RevocationWatch = { live: boolean; epoch: number };

type Watch = RevocationWatch & { waiting: Map<string, Set<() => void>> };

const watches = new WeakMap<Db, Watch>();

/** The watch of this database pool's process, or undefined when nothing listens (the key cache is then not used). */
export function revocationWatchOf(db: Db): RevocationWatch | undefined {
  return watches.get(db);
}

/**
 * LISTENs for revoked keys on a connection of its own and calls `evict` with each key's id, or with
 * null when notifications may have been missed (connection lost) or start again (connected): the
 * keys kept until then are all forgotten.
 */
export function watchKeyRevocations(ctx: AppContext, evict: (keyId: string | null) => void): Listening {
  const watch: Watch = { live: false, epoch: 0, waiting: new Map() };
  watches.set(ctx.db, watch);
  const listening = listenOn(
    ctx.db,
    CHANNEL,
    {
      notified(keyId) {
        watch.epoch++;
        evict(keyId);
        for (const done of watch.waiting.get(keyId) ?? []) done();
      },
      live() {
        watch.epoch++;
        watch.live = true;
        evict(null);
      },
      lost() {
        watch.epoch++;
        watch.live = false;
        evict(null);
        // Nothing more will be heard on this connection: whoever waits goes on.
        for (const waiters of watch.waiting.values()) for (const done of waiters) done();
      },
    },
    ctx.logger,
  );
  return {
    ready: (ms) => listening.ready(ms),
    async close() {
      if (watches.get(ctx.db) === watch) watches.delete(ctx.db);
      await listening.close();
    },
  };
}

/**
 * Called before a key is revoked: `heard(ms)` resolves once this process's listener has heard the
 * revocation (PostgreSQL signals every listener as the revocation commits, so the other processes
 * hear it at the same moment), or after `ms`, or at once when nothing listens.
 */
export function expectRevocation(db: Db, keyId: string): { heard(ms: number): Promise<void>; cancel(): void } {
  const watch = watches.get(db);
  if (!watch?.live) return { heard: async () => {}, cancel: () => {} };
  let resolve: () => void = () => {};
  const done = new Promise<void>((r) => {
    resolve = r;
  });
  const waiters = watch.waiting.get(keyId) ?? new Set();
  waiters.add(resolve);
  watch.waiting.set(keyId, waiters);
  const cancel = () => {
    waiters.delete(resolve);
    if (waiters.size === 0 && watch.waiting.get(keyId) === waiters) watch.waiting.delete(keyId);
    resolve();
  };
  return {
    async heard(ms) {
      const timer = setTimeout(cancel, ms);
      await done;
      clearTimeout(timer);
      cancel();
    },
    cancel,
  };
}
