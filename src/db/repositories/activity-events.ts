import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { type ChainedEvent, type ChainedFields, eventHash, GENESIS_HASH } from '../../domain/audit/hash-chain.ts';
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
 * Appends an event to its chain inside the caller's transaction, in two statements. The first
 * creates the chain head or moves it on by one and locks it: it answers the new seq and, because
 * the hash column is not touched yet, the previous hash. The second inserts the event and records its
 * hash on the head. Concurrent appends to one chain queue on the head row, so seq stays gap-free.
 */
export async function appendEvent(tx: Executor, event: NewEvent): Promise<ActivityEventRow> {
  const [head] = await tx
    .insert(chainHeads)
    .values({ chainId: event.chainId, lastSeq: 1, lastHash: GENESIS_HASH })
    .onConflictDoUpdate({ target: chainHeads.chainId, set: { lastSeq: sql`${chainHeads.lastSeq} + 1` } })
    .returning({ seq: chainHeads.lastSeq, prevHash: chainHeads.lastHash });
  const seq = head!.seq;
  const prevHash = head!.prevHash;
  const hash = eventHash(prevHash, { ...chainFieldsOf(event), seq });
  const row = { ...event, seq, prevHash, hash };
  await tx.execute(sql`
    WITH inserted AS (
      INSERT INTO activity_events (id, chain_id, platform_id, company_id, seq, type, message, actor_user_id, metadata,
                                   bank_key, environment, connection_id, created_at, expires_at, prev_hash, hash)
      VALUES (${row.id}, ${row.chainId}, ${row.platformId}, ${row.companyId}, ${seq}, ${row.type}, ${row.message},
              ${row.actorUserId}, ${JSON.stringify(row.metadata)}::jsonb, ${row.bankKey}, ${row.environment},
              ${row.connectionId}, ${row.createdAt}, ${row.expiresAt}, ${prevHash}, ${hash})
      RETURNING 1)
    UPDATE chain_heads SET last_hash = ${hash} WHERE chain_id = ${row.chainId} AND EXISTS (SELECT 1 FROM inserted)`);
  return row;
}

/** What the hash chain covers of a new event, but its seq (handed out where it is appended). */
export function chainFieldsOf(event: NewEvent): Omit<ChainedFields, 'seq'> {
  return {
    id: event.id,
    platformId: event.platformId,
    companyId: event.companyId,
    type: event.type,
    message: event.message,
    actorUserId: event.actorUserId,
    metadata: event.metadata,
    createdAt: event.createdAt.toISOString(),
    expiresAt: event.expiresAt?.toISOString() ?? null,
  };
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
