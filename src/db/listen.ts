import pg from 'pg';
import type { Logger } from '../platform/logger.ts';
import type { Db } from './client.ts';

export type ListenHandlers = {
  /** A notification on the channel, with its payload. */
  notified(payload: string): void;
  /** LISTEN is in place: from now on every notification committed is delivered. */
  live(): void;
  /** The connection is gone: notifications are missed until the next `live`. */
  lost(): void;
};

export type Listening = {
  /** Resolves once LISTEN is first in place, or after `ms` (whichever comes first). */
  ready(ms: number): Promise<void>;
  close(): Promise<void>;
};

/** Waits between reconnection attempts, doubled after each failure up to the last. */
const RETRY_MS = [100, 250, 500, 1000, 2000, 5000];

/**
 * Keeps a connection of its own (the pool's settings, outside the pool: a LISTEN belongs to one
 * session) LISTENing on `channel`, and opens a new one whenever it is lost, for as long as it is not
 * closed. The handlers say when notifications may have been missed (`lost`) and when they are
 * delivered again (`live`), so a reader can stop trusting what it kept in between.
 */
export function listenOn(db: Db, channel: string, handlers: ListenHandlers, logger: Logger): Listening {
  let closed = false;
  let client: pg.Client | undefined;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  let firstLive: () => void = () => {};
  const live = new Promise<void>((resolve) => {
    firstLive = resolve;
  });

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ ...db.$client.options, keepAlive: true });
    client = c;
    let gone = false;
    const lose = (err?: Error) => {
      if (gone) return;
      gone = true;
      handlers.lost();
      void c.end().catch(() => {});
      if (closed) return;
      if (err) logger.warn({ err, channel }, 'notification listener lost its connection; reconnecting');
      const wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)];
      retry = setTimeout(() => void connect(), wait);
      retry.unref();
    };
    c.on('error', lose);
    c.on('end', () => lose());
    c.on('notification', (message) => {
      if (message.channel === channel) handlers.notified(message.payload ?? '');
    });
    try {
      await c.connect();
      // The channel is a constant of ours, never client input.
      await c.query(`LISTEN ${channel}`);
    } catch (err) {
      lose(err as Error);
      return;
    }
    if (gone || closed) return;
    failures = 0;
    handlers.live();
    firstLive();
  };
  void connect();

  return {
    async ready(ms) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([live, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
