import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { createEncryptor, keyIdOf, sealCompressed } from './encryption.ts';

const A = randomBytes(32);
const B = randomBytes(32);
const TEXT = `{"statement":"Åström Oy","entries":[${'{"amount":"12.30"},'.repeat(2000)}{}]}`;

test('a gzipped value sealed in pieces decrypts to its text; members of several gzip runs concatenate', () => {
  const half = TEXT.length >> 1;
  const sealed = sealCompressed(A, Buffer.concat([gzipSync(TEXT.slice(0, half)), gzipSync(TEXT.slice(half))]));
  assert.match(sealed, new RegExp(`^${keyIdOf(A)}:[^:]+:[^:]+:[^:]+:gz$`));
  assert.equal(createEncryptor(A).decrypt(sealed), TEXT);
  assert.ok(sealed.length < TEXT.length / 4, 'compressed');
});

test('reseal moves a value to the encrypting key and keeps its compression', () => {
  const old = createEncryptor(A);
  const rotated = createEncryptor(B, [A]);
  const compressed = rotated.reseal(sealCompressed(A, gzipSync(TEXT)));
  assert.ok(compressed.startsWith(`${keyIdOf(B)}:`) && compressed.endsWith(':gz'));
  assert.equal(rotated.decrypt(compressed), TEXT);
  const plain = rotated.reseal(old.encrypt('plain text'));
  assert.ok(plain.startsWith(`${keyIdOf(B)}:`) && !plain.endsWith(':gz'));
  assert.equal(rotated.decrypt(plain), 'plain text');
  assert.throws(() => createEncryptor(B).decrypt(sealCompressed(A, gzipSync(TEXT))), /cannot decrypt/);
});
