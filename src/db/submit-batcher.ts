import type { PoolClient } from 'pg';
import type { Db } from './client.ts';

/**
 * Group commit for test-environment submits: requests that arrive while earlier ones are still in
 * PostgreSQL are journaled together, in one journal_submit_batch statement (src/db/functions) and
 * one transaction. Each still gets its own checks, claim, journal number, chain events and answer (if
 * one item fails, the batch runs again with each item in a subtransaction of its own, so the failing
 * one is rolled back alone); what they share is the round trip, the commit
 * and the company's serialisation points, taken once per batch instead of once per document. Under
 * no concurrency a batch holds one item, so nothing waits for company.
 *
 * A batch never holds two items with the same company idempotency key or message id (the second
 * waits for the next batch, where it finds the first as an earlier document), and its items are
 * sorted by company, so concurrent batches lock companies in one order.
 */
export type BatchItem = {
  platformId: string;
  companyId: string;
  key: string;
  messageId: string | null;
  /** The API key to find still active, or null. */
  apiKeyId: string | null;
  bankKey: string;
  environment: string;
  /** The submit context the item was converted with (text of submit_context), or null: not checked. */
  context: string | null;
  document: Record<string, unknown>;
  lines: Array<Record<string, unknown>>;
  approval: Record<string, unknown> | null;
  events: Array<Record<string, unknown>>;
  /** Webhook events for the outbox (outbox_events rows), with the same journal-number placeholder as `events`. */
  outbox: Array<Record<string, unknown>>;
};

type Waiting = { item: BatchItem; resolve(result: string): void; reject(error: unknown): void };

const MAX_BATCH = 32;
const MAX_IN_FLIGHT = 2;
/**
 * One batch in PostgreSQL at a time while it comes back promptly: what arrives meanwhile forms the next
 * batch, so batches stay large under load (a commit, a round trip and a statement shared by more
 * submits; measured, 32 companies at 32 connections: about 1,500 instead of 1,250 per second, p99
 * 36-44 instead of 46-61 ms). A batch still out after this long is waiting on something (a lock of one
 * of its companies): a second one then goes beside it, so one company's wait does not hold up others.
 */
const SECOND_BATCH_AFTER_MS = 50;

class SubmitBatcher {
  private queue: Waiting[] = [];
  /** The batches now in PostgreSQL, with when each was sent (performance.now()). */
  private readonly inFlight = new Set<{ sent: number }>();
  /** The timer that pumps once the batches out are overdue. */
  private wake: NodeJS.Timeout | undefined;
  /** Companies with a batch in PostgreSQL: their next items wait, to go together in one batch. */
  private readonly busy = new Set<string>();
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  submit(item: BatchItem): Promise<string> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const wait = this.waitBeforeNext();
      if (wait > 0) {
        this.wakeIn(wait);
        return;
      }
      const batch = this.take();
      if (batch.length === 0) return;
      const companies = new Set(batch.map((w) => w.item.companyId));
      for (const c of companies) this.busy.add(c);
      const flight = { sent: performance.now() };
      this.inFlight.add(flight);
      void this.run(batch).finally(() => {
        for (const c of companies) this.busy.delete(c);
        this.inFlight.delete(flight);
        this.pump();
      });
    }
  }

  /**
   * Milliseconds until another batch may go: 0 when none is out, else until every one out is overdue;
   * Infinity when MAX_IN_FLIGHT are out (the next to come back pumps).
   */
  private waitBeforeNext(): number {
    if (this.inFlight.size === 0) return 0;
    if (this.inFlight.size >= MAX_IN_FLIGHT) return Number.POSITIVE_INFINITY;
    const now = performance.now();
    let wait = 0;
    for (const flight of this.inFlight) wait = Math.max(wait, flight.sent + SECOND_BATCH_AFTER_MS - now);
    return wait;
  }

  /** Pumps again in `ms` (a timer may fire a little early: pump then finds a little wait left and re-arms). */
  private wakeIn(ms: number): void {
    if (this.wake !== undefined || ms === Number.POSITIVE_INFINITY) return;
    this.wake = setTimeout(
      () => {
        this.wake = undefined;
        this.pump();
      },
      Math.max(1, Math.ceil(ms)),
    );
    this.wake.unref();
  }

  /**
   * The next batch: queued items in arrival order, without two claims on the same key or message id,
   * and none of a company that already has a batch in PostgreSQL (a company's journal counter and
   * chain head serialise its batches anyway; waiting here, its items join one batch instead of
   * queueing on the row locks, each holding a connection).
   */
  private take(): Waiting[] {
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    const claimed = new Set<string>();
    for (const w of this.queue) {
      const { companyId, key, messageId } = w.item;
      const byKey = `${companyId}\u0000k\u0000${key}`;
      const byMessage = messageId === null ? undefined : `${companyId}\u0000m\u0000${messageId}`;
      if (
        batch.length >= MAX_BATCH ||
        this.busy.has(companyId) ||
        claimed.has(byKey) ||
        (byMessage && claimed.has(byMessage))
      ) {
        rest.push(w);
        continue;
      }
      claimed.add(byKey);
      if (byMessage) claimed.add(byMessage);
      batch.push(w);
    }
    this.queue = rest;
    return batch.sort((a, b) =>
      a.item.companyId < b.item.companyId ? -1 : a.item.companyId > b.item.companyId ? 1 : 0,
    );
  }

  private async run(batch: Waiting[]): Promise<void> {
    const items = batchJson(batch.map((w) => w.item));
    try {
      // Items share one transaction; if any of them fails, the statement wrote nothing and the same
      // items run again isolated, each in its own subtransaction (journal_submit_batch). Both on one
      // connection: node-postgres rejects on PostgreSQL's error message, before the failed transaction
      // has ended, and on another connection the second run would find its advisory locks still held.
      const client = await this.db.$client.connect();
      let answers: string[];
      try {
        answers = await statement(client, items, false).catch(() => statement(client, items, true));
      } finally {
        client.release();
      }
      batch.forEach((w, i) => {
        w.resolve(answers[i]!);
      });
    } catch (error) {
      for (const w of batch) w.reject(error);
    }
  }
}

/** The items as journal_submit_batch reads them. */
export function batchJson(items: BatchItem[]): string {
  return JSON.stringify(
    items.map((item) => ({
      platform_id: item.platformId,
      company_id: item.companyId,
      key: item.key,
      message_id: item.messageId,
      api_key_id: item.apiKeyId,
      bank_key: item.bankKey,
      environment: item.environment,
      context: item.context,
      document: item.document,
      lines: item.lines,
      approval: item.approval,
      events: item.events,
      outbox: item.outbox,
    })),
  );
}

async function statement(client: PoolClient, items: string, isolated: boolean): Promise<string[]> {
  const result = await client.query<{ r: string[] }>({
    name: 'journal_submit_batch',
    text: 'SELECT journal_submit_batch($1::jsonb, $2) AS r',
    values: [items, isolated],
  });
  return result.rows[0]!.r;
}

const batchers = new WeakMap<Db, SubmitBatcher>();

/** The process's batcher for this database (one per pool). */
export function submitBatcherFor(db: Db): { submit(item: BatchItem): Promise<string> } {
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = new SubmitBatcher(db);
    batchers.set(db, batcher);
  }
  return batcher;
}
