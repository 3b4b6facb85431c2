import { randomFillSync } from 'node:crypto';

/**
 * Cryptographically random bytes, drawn from a 4 KiB pool that the CSPRNG refills when it runs out
 * (what Node's own randomUUID does). Ids and AES-GCM nonces take a few bytes each many times per
 * request; one getrandom call per pool instead of one per value. Every byte is handed out once.
 */
const POOL = Buffer.allocUnsafe(4096);
let offset = POOL.length;

export function randomBytesFromPool(length: number): Buffer {
  if (length > POOL.length) return randomFillSync(Buffer.allocUnsafe(length));
  if (offset + length > POOL.length) {
    randomFillSync(POOL);
    offset = 0;
  }
  const out = Buffer.from(POOL.subarray(offset, offset + length));
  offset += length;
  return out;
}
