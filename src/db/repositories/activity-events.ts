import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { type ChainedEvent, eventHash, GENESIS_HASH } from '../../domain/audit/hash-chain.ts';
import type { Executor } from '../executor.ts';
import { activityEvents, chainHeads } from '../schema/index.ts';

export type ActivityEventRow = typeof activityEvents.$inferSelect;

export type NewEvent = {
  id: string;
  chainId: string;
  platformId: string;
  companyId: string | null;
  type: string;
  message: string;
  actorUserId: string | null;
  metadata: Record<string, unknown>;
  bankKey: string | null;
  environment: string | null;
  connectionId: string | null;
  createdAt: Date;
  expiresAt: Date | null;
};

/**
 * Appends an event to its chain inside the caller's transaction. The chain head row is locked, so
 * concurrent appends to one company queue up and seq stays gap-free and strictly increasing.
 */
export async function appendEvent(tx: Executor, event: NewEvent): Promise<ActivityEventRow> {
  await tx
    .insert(chainHeads)
    .values({ chainId: event.chainId, lastSeq: 0, lastHash: GENESIS_HASH })
    .onConflictDoNothing();
  const [head] = await tx.select().from(chainHeads).where(eq(chainHeads.chainId, event.chainId)).for('update');
  const seq = (head?.lastSeq ?? 0) + 1;
  const prevHash = head?.lastHash ?? GENESIS_HASH;
  const hash = eventHash(prevHash, {
    id: event.id,
    platformId: event.platformId,
    companyId: event.companyId,
    seq,
    type: event.type,
    message: event.message,
    actorUserId: event.actorUserId,
    metadata: event.metadata,
    createdAt: event.createdAt.toISOString(),
    expiresAt: event.expiresAt?.toISOString() ?? null,
  });
  const [row] = await tx
    .insert(activityEvents)
    .values({ ...event, seq, prevHash, hash })
    .returning();
  await tx.update(chainHeads).set({ lastSeq: seq, lastHash: hash }).where(eq(chainHeads.chainId, event.chainId));
  return row!;
}

/** The chained view of a stored event, as the verifier reads it. */
export function chainedEvent(row: ActivityEventRow): ChainedEvent {
  return {
    id: row.id,
    platformId: row.platformId,
    companyId: row.companyId,
    seq: row.seq,
    type: row.type,
    message: row.message,
    actorUserId: row.actorUserId,
    metadata: row.metadata,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

/** Events of a company's chain in seq order from `afterSeq`, for verification and `since` paging. */
export async function listChainAfter(
  q: Executor,
  scope: { platformId: string; companyId: string },
  afterSeq: number,
  limit: number,
  narrow?: ChannelNarrowing,
): Promise<ActivityEventRow[]> {
  return q
    .select()
    .from(activityEvents)
    .where(
      and(
        eq(activityEvents.platformId, scope.platformId),
        eq(activityEvents.chainId, scope.companyId),
        gt(activityEvents.seq, afterSeq),
        narrowing(narrow),
      ),
    )
    .orderBy(asc(activityEvents.seq))
    .limit(limit);
}

/** Newest first, keyset on seq: events before `beforeSeq` (all when undefined). */
export async function listChainNewest(
  q: Executor,
  scope: { platformId: string; companyId: string },
  beforeSeq: number | undefined,
  limit: number,
  narrow?: ChannelNarrowing,
): Promise<ActivityEventRow[]> {
  return q
    .select()
    .from(activityEvents)
    .where(
      and(
        eq(activityEvents.platformId, scope.platformId),
        eq(activityEvents.chainId, scope.companyId),
        beforeSeq === undefined ? undefined : lt(activityEvents.seq, beforeSeq),
        narrowing(narrow),
      ),
    )
    .orderBy(desc(activityEvents.seq))
    .limit(limit);
}

/**
 * GET /journal/events?connectionId=: the connection's own events plus events of the banks it serves
 * in its environment; events stamped with the other environment are excluded, events with none kept.
 */
export type ChannelNarrowing = { connectionId: string; bankKeys: string[]; environment: string };

function narrowing(narrow: ChannelNarrowing | undefined) {
  if (!narrow) return undefined;
  return and(
    or(eq(activityEvents.connectionId, narrow.connectionId), inArray(activityEvents.bankKey, narrow.bankKeys)),
    or(isNull(activityEvents.environment), eq(activityEvents.environment, narrow.environment)),
  );
}

/** Retention: removes events whose expiry has passed. */
export async function deleteExpiredEvents(q: Executor, now: Date): Promise<number> {
  const rows = await q
    .delete(activityEvents)
    .where(and(sql`${activityEvents.expiresAt} IS NOT NULL`, lt(activityEvents.expiresAt, now)))
    .returning({ id: activityEvents.id });
  return rows.length;
}
