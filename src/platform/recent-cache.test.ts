import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentCache } from './recent-cache.ts';

describe('RecentCache', () => {
  it('keeps at most maxEntries, dropping the least recently used first', () => {
    const cache = new RecentCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    assert.equal(cache.get('a'), 1); // a is now more recent than b
    cache.set('c', 3);
    assert.equal(cache.size, 2);
    assert.equal(cache.get('b'), undefined);
    assert.equal(cache.get('a'), 1);
    assert.equal(cache.get('c'), 3);
  });

  it('replaces a value without evicting another entry', () => {
    const cache = new RecentCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    assert.equal(cache.size, 2);
    assert.equal(cache.get('a'), 10);
    assert.equal(cache.get('b'), 2);
  });

  it('deletes by key and by predicate', () => {
    const cache = new RecentCache<{ id: string }>(10);
    cache.set('x', { id: 'k1' });
    cache.set('y', { id: 'k2' });
    cache.set('z', { id: 'k1' });
    cache.deleteWhere((v) => v.id === 'k1');
    assert.deepEqual([cache.get('x'), cache.get('y'), cache.get('z')], [undefined, { id: 'k2' }, undefined]);
    cache.delete('y');
    assert.equal(cache.size, 0);
  });
});
