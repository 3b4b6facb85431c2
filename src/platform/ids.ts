import { randomBytesFromPool } from './random-pool.ts';

/**
 * Ids carry a type prefix (DESIGN.md) and sort by creation time: 10 characters of milliseconds
 * in Crockford base32 followed by 16 random characters, so keyset pages on id follow creation order.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix =
  | 'plat'
  | 'comp'
  | 'doc'
  | 'evt'
  | 'wh'
  | 'del'
  | 'job'
  | 'usr'
  | 'conn'
  | 'acct'
  | 'apol'
  | 'appr'
  | 'ak'
  | 'sess'
  | 'inv'
  | 'req'
  | 'oac'
  | 'ogr'
  | 'ocd'
  | 'otk'
  | 'rcv'
  | 'lch'
  | 'exp'
  | 'inc'
  | 'mat';

export type IdGenerator = { next(prefix: IdPrefix): string };

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function randomPart(length: number): string {
  const bytes = randomBytesFromPool(length);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return out;
}

export function idGenerator(now: () => number = Date.now): IdGenerator {
  return { next: (prefix) => `${prefix}_${encodeTime(now())}${randomPart(16)}` };
}
