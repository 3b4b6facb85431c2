import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Secrets are stored only as SHA-256 digests and compared in constant time (DESIGN.md). */

export function sha256Hex(value: string | Uint8Array): string {
  return createHash('sha256').update(value).digest('hex');
}

/** A fresh secret of `bytes` random bytes, as lowercase hex behind `prefix`. */
export function randomSecret(prefix: string, bytes = 32): string {
  return prefix + randomBytes(bytes).toString('hex');
}

/** Random characters for human-facing passwords: no look-alike characters. */
export function randomPassword(length = 20): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += alphabet[byte % alphabet.length];
  return out;
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  // Compare equal-length buffers always, so the time does not reveal the length of a match.
  const same = left.length === right.length;
  return timingSafeEqual(same ? left : right, right) && same;
}
