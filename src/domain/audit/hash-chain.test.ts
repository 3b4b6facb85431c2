import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import {
  type ChainedEvent,
  type ChainedFields,
  canonicalJson,
  canonicalWithSeqHole,
  eventHash,
  GENESIS_HASH,
  verifyChain,
} from './hash-chain.ts';

function chain(n: number): ChainedEvent[] {
  const out: ChainedEvent[] = [];
  let prev = GENESIS_HASH;
  for (let seq = 1; seq <= n; seq++) {
    const fields: ChainedFields = {
      id: `evt_${seq}`,
      platformId: 'plat_1',
      companyId: 'comp_1',
      seq,
      type: 'payment.submitted',
      message: `event ${seq}`,
      actorUserId: null,
      metadata: { z: 1, a: { y: [2, 1], b: 'x' } },
      createdAt: new Date(Date.UTC(2026, 10, 21, 0, 0, seq)).toISOString(),
      expiresAt: null,
    };
    const hash = eventHash(prev, fields);
    out.push({ ...fields, prevHash: prev, hash });
    prev = hash;
  }
  return out;
}

test('canonical JSON sorts keys at every depth and keeps array order', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [3, 1], c: null } }), '{"a":{"c":null,"d":[3,1]},"b":1}');
  assert.equal(canonicalJson({ a: undefined, b: 2 }), '{"b":2}');
});

test('an intact chain verifies', () => {
  assert.deepEqual(verifyChain(chain(5)), { ok: true, checked: 5 });
});

test('tampering with one field breaks the chain at that event', () => {
  const events = chain(5);
  events[2] = { ...events[2]!, message: 'changed' };
  const verdict = verifyChain(events);
  assert.equal(verdict.ok, false);
  assert.equal(!verdict.ok && verdict.brokenAtSeq, 3);
});

test('a removed event or a re-hashed forgery is detected at the next link', () => {
  const events = chain(5);
  const gap = verifyChain([...events.slice(0, 2), ...events.slice(3)]);
  assert.equal(!gap.ok && gap.brokenAtSeq, 4);
  const forged = chain(5);
  const { prevHash, hash: _hash, ...fields } = { ...forged[1]!, message: 'forged' };
  forged[1] = { ...fields, prevHash, hash: eventHash(prevHash, fields) };
  const verdict = verifyChain(forged);
  assert.equal(!verdict.ok && verdict.brokenAtSeq, 3);
});

test('a chain whose start was removed by retention verifies from its first kept event', () => {
  assert.deepEqual(verifyChain(chain(6).slice(2)), { ok: true, checked: 4 });
});

test('the canonical JSON built with a seq placeholder becomes the event canonical JSON once the seq is filled in', () => {
  const hole = '#seq:5f0c#';
  for (const seq of [1, 9, 10, 12345678901]) {
    const fields: ChainedFields = {
      id: 'evt_1',
      platformId: 'plat_1',
      companyId: 'comp_1',
      seq,
      type: 'payment.submitted',
      // Content that looks like a seq or a placeholder must not be touched.
      message: 'seq 7 "seq":"#seq:5f0c" {"seq":1}',
      actorUserId: null,
      metadata: { seq: 3, nested: { seq: 'x' }, list: [1, 'seq'] },
      createdAt: '2026-11-21T10:00:00.000Z',
      expiresAt: '2027-11-21T10:00:00.000Z',
    };
    const { seq: _seq, ...rest } = fields;
    const filled = canonicalWithSeqHole(rest, hole).replace(JSON.stringify(hole), String(seq));
    assert.equal(filled, canonicalJson(fields));
    assert.equal(
      eventHash(GENESIS_HASH, fields),
      createHash('sha256')
        .update(GENESIS_HASH + filled)
        .digest('hex'),
    );
  }
});
