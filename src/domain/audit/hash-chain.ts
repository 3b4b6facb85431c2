import { createHash } from 'node:crypto';

/**
 * The audit trail's hash chain (DESIGN.md): `hash` is the SHA-256 hex of `prevHash` joined to the
 * canonical JSON (keys sorted at every depth) of the event's other fields; the first event of a chain
 * has a `prevHash` of 64 zeros. Changing any stored field of any event breaks every later link.
 */
export const GENESIS_HASH = '0'.repeat(64);

export type ChainedFields = {
  id: string;
  platformId: string;
  companyId: string | null;
  seq: number;
  type: string;
  message: string;
  actorUserId: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
  expiresAt: string | null;
};

export type ChainedEvent = ChainedFields & { prevHash: string; hash: string };

/**
 * JSON with object keys sorted at every depth (UTF-16 code unit order, Array#sort's own); arrays keep
 * their order; undefined members are left out. Built by appending to one string, without the
 * entry arrays and closures of a map/filter/join: it runs on every submit (the request digest and
 * each audit event), where those allocations were most of its cost (docs/adr/0080).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonicalJson(value[i]);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    if (out.length > 1) out += ',';
    out += JSON.stringify(key);
    out += ':';
    out += canonicalJson(member);
  }
  return `${out}}`;
}

export function eventHash(prevHash: string, fields: ChainedFields): string {
  return createHash('sha256')
    .update(prevHash + canonicalJson(fields))
    .digest('hex');
}

/**
 * What eventHash hashes after prevHash, built before the event's seq is known: the canonical JSON with
 * seq as the placeholder string `seqHole`. Replacing JSON.stringify(seqHole) by the seq's digits gives
 * exactly canonicalJson of the event (keys are sorted, so the placeholder sits where seq would).
 * The store fills it in where the seq is handed out (the submit statement, migration 0007).
 */
export function canonicalWithSeqHole(fields: Omit<ChainedFields, 'seq'>, seqHole: string): string {
  return canonicalJson({ ...fields, seq: seqHole });
}

export type ChainVerdict =
  | { ok: true; checked: number }
  | { ok: false; checked: number; brokenAtSeq: number; eventId: string; reason: string };

/**
 * Verifies events in seq order. The first event given is trusted for its prevHash when the chain's
 * start was removed by retention (its seq is above 1); every later link must follow exactly.
 */
export function verifyChain(events: readonly ChainedEvent[]): ChainVerdict {
  let expectedPrev: string | undefined;
  let expectedSeq: number | undefined;
  let checked = 0;
  for (const e of events) {
    const { prevHash, hash, ...fields } = e;
    const broken = (reason: string): ChainVerdict => ({
      ok: false,
      checked,
      brokenAtSeq: e.seq,
      eventId: e.id,
      reason,
    });
    if (expectedSeq === undefined) {
      if (e.seq === 1 && prevHash !== GENESIS_HASH)
        return broken('the first event does not start from the genesis hash');
    } else {
      if (e.seq !== expectedSeq) return broken(`sequence jumps from ${expectedSeq - 1} to ${e.seq}`);
      if (prevHash !== expectedPrev) return broken('prevHash does not match the previous event');
    }
    if (eventHash(prevHash, fields) !== hash) return broken('the hash does not match the event content');
    expectedPrev = hash;
    expectedSeq = e.seq + 1;
    checked++;
  }
  return { ok: true, checked };
}
