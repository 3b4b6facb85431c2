import {
  type ActivityEventRow,
  type EventNarrowing,
  listChainAfter,
  listChainNewest,
} from '../../db/repositories/activity-events.ts';
import { findConnection } from '../../db/repositories/connections.ts';
import { maskedDestination } from '../../domain/webhooks/index.ts';
import type { AppContext } from '../context.ts';
import { AppError, badRequest } from '../errors.ts';
import { companyScope } from '../identity/company-scope.ts';
import type { Principal } from '../identity/principal.ts';
import { decodeCursor, encodeCursor } from '../pagination.ts';

/** GET /journal/events page size: default and maximum 5000 (contract, Limits). */
export const EVENTS_MAX_LIMIT = 5000;

export type EventsQuery = {
  companyId: string;
  limit?: number | undefined;
  cursor?: string | undefined;
  since?: number | undefined;
  connectionId?: string | undefined;
  documentId?: string | undefined;
};

/**
 * An event's metadata as read back: a webhook destination is shown masked. Entries written before
 * destinations were sealed hold the plain URL, and the hash chain forbids rewriting them, so they are
 * masked here (their `hash` then covers the stored, unmasked value; verify-audit reads the store).
 */
function metadataView(row: ActivityEventRow): ActivityEventRow['metadata'] {
  const metadata = row.metadata as Record<string, unknown> | null;
  if (!row.type.startsWith('webhook.') || !metadata || typeof metadata.url !== 'string') return row.metadata;
  const transport = typeof metadata.transport === 'string' ? metadata.transport : 'slack';
  return { ...metadata, url: maskedDestination(metadata.url, transport) };
}

export function eventView(row: ActivityEventRow) {
  return {
    id: row.id,
    platformId: row.platformId,
    companyId: row.companyId,
    type: row.type,
    message: row.message,
    actorUserId: row.actorUserId,
    metadata: metadataView(row),
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    prevHash: row.prevHash,
    hash: row.hash,
    seq: row.seq,
  };
}

function seqCursor(cursor: string | undefined): number | undefined {
  const key = decodeCursor(cursor);
  if (key === undefined) return undefined;
  if (!/^[1-9]\d{0,15}$/.test(key)) throw badRequest('invalid cursor');
  return Number(key);
}

/**
 * GET /journal/events, the company's audit trail. Default: newest first, keyset on seq, a non-null
 * nextCursor means truncated. `since=<seq>`: oldest first after that seq; nextCursor is the next
 * `since` value, null once caught up. `connectionId` narrows to one channel (the repository's
 * ChannelNarrowing); an id that is not one of the company's connections is 404 connection_not_found.
 * `documentId` narrows to the events of one document (its status timeline); an unknown id finds none.
 */
export async function listEvents(ctx: AppContext, principal: Principal, query: EventsQuery) {
  if (query.since !== undefined && query.cursor !== undefined && query.cursor !== '')
    throw badRequest('since and cursor cannot be used together', { fields: ['since', 'cursor'] });
  if (query.connectionId !== undefined && query.documentId !== undefined)
    throw badRequest('connectionId and documentId cannot be used together', { fields: ['connectionId', 'documentId'] });
  const scope = await companyScope(ctx, principal, query.companyId);
  const limit = Math.min(query.limit ?? EVENTS_MAX_LIMIT, EVENTS_MAX_LIMIT);
  let narrow: EventNarrowing | undefined =
    query.documentId === undefined ? undefined : { documentId: query.documentId };
  if (query.connectionId !== undefined) {
    const connection = await findConnection(ctx.db, scope, query.connectionId);
    if (!connection) throw new AppError('connection_not_found', 'not one of the company’s connections');
    narrow = { connectionId: connection.id, bankKeys: [connection.bankKey], environment: connection.environment };
  }
  if (query.since !== undefined) {
    const rows = await listChainAfter(ctx.db, scope, query.since, limit + 1, narrow);
    const more = rows.length > limit;
    const items = more ? rows.slice(0, limit) : rows;
    return { items: items.map(eventView), nextCursor: more ? String(items[items.length - 1]!.seq) : null };
  }
  const rows = await listChainNewest(ctx.db, scope, seqCursor(query.cursor), limit + 1, narrow);
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  return {
    items: items.map(eventView),
    nextCursor: more ? encodeCursor(String(items[items.length - 1]!.seq)) : null,
  };
}
