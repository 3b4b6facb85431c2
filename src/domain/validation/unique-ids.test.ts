import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UniqueIds } from './unique-ids.ts';

test('ascending ids are all new; a repeat is found in and out of order', () => {
  const ids = new UniqueIds();
  for (const id of ['A-1', 'A-2', 'A-3']) assert.equal(ids.add(id), true);
  assert.equal(ids.add('A-3'), false);
  assert.equal(ids.add('A-0'), true);
  assert.equal(ids.add('A-2'), false);
  assert.equal(ids.add('A-4'), true);
  assert.equal(ids.add('A-4'), false);
});

test('a repeat of the first id after the order breaks', () => {
  const ids = new UniqueIds();
  assert.equal(ids.add('b'), true);
  assert.equal(ids.add('a'), true);
  assert.equal(ids.add('b'), false);
});

test('more ids than the capacity given, then the order breaking', () => {
  const ids = new UniqueIds(2);
  for (const id of ['c1', 'c2', 'c3', 'c4']) assert.equal(ids.add(id), true);
  assert.equal(ids.add('c0'), true);
  for (const id of ['c0', 'c1', 'c4']) assert.equal(ids.add(id), false);
  assert.equal(ids.add('c5'), true);
});
