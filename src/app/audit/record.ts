import type { Executor } from '../../db/executor.ts';
import { appendEvent, appendEvents, type NewEvent } from '../../db/repositories/activity-events.ts';
import type { AppContext } from '../context.ts';
import { retentionUntil } from './retention-policy.ts';

/**
 * Records one activity-log event in the caller's transaction, so a state change and its audit entry
 * commit together or not at all. Company events chain per company; platform-level events (keys,
 * admins, companies) chain per platform.
 */
/** What recording needs from the context: the clock and ids (offline commands have no more). */
export type AuditContext = Pick<AppContext, 'clock' | 'ids'>;

export type AuditEvent = {
  platformId: string;
  companyId?: string | null;
  type: string;
  message: string;
  actorUserId?: string | null;
  metadata?: Record<string, unknown>;
  bankKey?: string | null;
  environment?: string | null;
  connectionId?: string | null;
};

export async function recordEvent(ctx: AuditContext, tx: Executor, event: AuditEvent) {
  return appendEvent(tx, newEvent(ctx, event));
}

/**
 * Records several events in one append. Pipeline writers (delivery, ingest, reconciliation) collect
 * their events and record them last in their transaction: the chain head is the last lock taken, after
 * every document row, so they never wait on each other in opposite orders (docs/adr/0012).
 */
export async function recordEvents(ctx: AuditContext, tx: Executor, events: AuditEvent[]) {
  return appendEvents(
    tx,
    events.map((e) => newEvent(ctx, e)),
  );
}

/** The stored shape of an event before the store chains it (gives it seq, prevHash and hash). */
export function newEvent(ctx: AuditContext, event: AuditEvent): NewEvent {
  const now = ctx.clock.now();
  return {
    id: ctx.ids.next('evt'),
    chainId: event.companyId ?? event.platformId,
    platformId: event.platformId,
    companyId: event.companyId ?? null,
    type: event.type,
    message: event.message,
    actorUserId: event.actorUserId ?? null,
    metadata: event.metadata ?? {},
    bankKey: event.bankKey ?? null,
    environment: event.environment ?? null,
    connectionId: event.connectionId ?? null,
    createdAt: now,
    expiresAt: retentionUntil(now, event.environment ?? null),
  };
}
