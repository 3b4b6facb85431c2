import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { type ChainedEvent, type ChainedFields, canonicalWithSeqHole } from '../../domain/audit/hash-chain.ts';
import type { Executor } from '../executor.ts';
import { activityEvents } from '../schema/index.ts';

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
 * Appends events to their chains inside the caller's transaction, through the one writer of the audit
 * trail (audit_append, src/db/functions/010_audit_append.sql): the seq is handed out and the hash
 * computed there, with the chain head locked, so concurrent appends to one chain queue and seq stays
 * gap-free. Answers the stored events, in the order given.
 */
export async function appendEvents(tx: Executor, events: NewEvent[]): Promise<ActivityEventRow[]> {
  if (events.length === 0) return [];
  const result = await tx.execute<{ r: { seq: number[]; prev_hash: string[]; hash: string[] } }>(
    sql`SELECT audit_append(${JSON.stringify(events.map((e) => auditAppendJson(e)))}::jsonb) AS r`,
  );
  const { seq, prev_hash, hash } = result.rows[0]!.r;
  return events.map((e, i) => ({ ...e, seq: seq[i]!, prevHash: prev_hash[i]!, hash: hash[i]! }));
}

export async function appendEvent(tx: Executor, event: NewEvent): Promise<ActivityEventRow> {
  const [row] = await appendEvents(tx, [event]);
  return row!;
}

/**
 * An event as audit_append reads it. The seq only exists inside the statement, so the canonical JSON
 * that the hash covers travels with a random placeholder where the seq goes (canonicalWithSeqHole);
 * random, so client text cannot collide with it.
 */
export function auditAppendJson(e: NewEvent, seqHole = `#seq:${randomUUID()}#`): Record<string, unknown> {
  const chained = chainFieldsOf(e);
  return {
    id: e.id,
    chain_id: e.chainId,
    platform_id: e.platformId,
    company_id: e.companyId,
    type: e.type,
    message: e.message,
    actor_user_id: e.actorUserId,
    metadata: JSON.stringify(e.metadata),
    bank_key: e.bankKey,
    environment: e.environment,
    connection_id: e.connectionId,
    created_at: chained.createdAt,
    expires_at: chained.expiresAt,
    canonical: canonicalWithSeqHole(chained, seqHole),
    seq_hole: JSON.stringify(seqHole),
  };
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
  narrow?: EventNarrowing,
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
  narrow?: EventNarrowing,
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

/**
 * GET /journal/events?documentId= (and the dashboard's document timeline): the events whose metadata
 * names the document (submit, approval, delivery, bank answers, reconciliation, cancel), read through
 * activity_events_document_idx.
 */
export type DocumentNarrowing = { documentId: string };

export type EventNarrowing = ChannelNarrowing | DocumentNarrowing;

function narrowing(narrow: EventNarrowing | undefined) {
  if (!narrow) return undefined;
  if ('documentId' in narrow) return sql`(${activityEvents.metadata} ->> 'documentId') = ${narrow.documentId}`;
  return and(
    or(eq(activityEvents.connectionId, narrow.connectionId), inArray(activityEvents.bankKey, narrow.bankKeys)),
    or(isNull(activityEvents.environment), eq(activityEvents.environment, narrow.environment)),
  );
}
