import { createHash, randomBytes } from 'node:crypto';

/** Secrets are stored only as SHA-256 digests (DESIGN.md); lookups compare digests, never secrets. */

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
