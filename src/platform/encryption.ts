import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { randomBytesFromPool } from './random-pool.ts';

/**
 * Payload encryption at rest: AES-256-GCM with a key id stored beside the ciphertext so keys can
 * rotate. Format: `<keyId>:<iv b64>:<tag b64>:<ciphertext b64>`, or with `:gz` after it when the
 * plaintext was gzipped before sealing (large statements and files: sealCompressed). The first key encrypts; every key
 * decrypts what it sealed (MASTER_KEYS; `npm run cli -- rekey` moves old values to the first key).
 */
export type Encryptor = {
  encrypt(plaintext: string): string;
  decrypt(sealed: string): string;
  /** The id of the key that encrypts (8 hex characters of the key's SHA-256). */
  readonly keyId: string;
  /** The ids of every key this encryptor can decrypt with, the encrypting one first. */
  readonly keyIds: readonly string[];
  /** The encrypting key, for a worker thread of this process that seals large values (sealCompressed). */
  readonly sealingKey: Buffer;
  /** The same value sealed under the encrypting key, compressed as it was (for rekey). */
  reseal(sealed: string): string;
};

export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export function createEncryptor(current: Buffer, previous: Buffer[] = []): Encryptor {
  const keys = new Map([current, ...previous].map((k) => [keyIdOf(k), k]));
  const currentId = keyIdOf(current);
  /** The plaintext bytes of a sealed value (still gzipped when `compressed`), under whichever key sealed it. */
  const open = (sealed: string): { plain: Buffer; compressed: boolean } => {
    const [keyId, iv, tag, body, compression] = sealed.split(':');
    const key = keyId ? keys.get(keyId) : undefined;
    if (!key || iv === undefined || tag === undefined || body === undefined) {
      throw new Error(`cannot decrypt payload sealed with key ${keyId ?? '?'}`);
    }
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]);
    return { plain, compressed: compression === 'gz' };
  };
  return {
    keyId: currentId,
    keyIds: [...keys.keys()],
    sealingKey: current,
    encrypt(plaintext) {
      const iv = randomBytesFromPool(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${currentId}:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${body.toString('base64')}`;
    },
    decrypt(sealed) {
      const { plain, compressed } = open(sealed);
      return (compressed ? gunzipSync(plain) : plain).toString('utf8');
    },
    reseal(sealed) {
      const { plain, compressed } = open(sealed);
      return compressed ? sealCompressed(current, plain) : this.encrypt(plain.toString('utf8'));
    },
  };
}

/**
 * Seals bytes that are already gzipped (a large statement's JSON or a received file, compressed in
 * the ingest's file worker): `decrypt` gives back the text. Statements compress about tenfold, so
 * the row, the copies on the way to it and the database's work shrink alike (docs/adr/0029).
 */
export function sealCompressed(key: Buffer, gzipped: Buffer): string {
  const iv = randomBytesFromPool(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(gzipped), cipher.final()]);
  return `${keyIdOf(key)}:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${body.toString('base64')}:gz`;
}

/**
 * The gzipped bytes sealCompressed sealed under `key`, still compressed: the caller inflates them as
 * it streams them out (the stateless statement route), never holding the text on its thread.
 */
export function openCompressed(key: Buffer, sealed: string): Buffer {
  const [keyId, iv, tag, body, compression] = sealed.split(':');
  if (keyId !== keyIdOf(key) || iv === undefined || tag === undefined || body === undefined || compression !== 'gz') {
    throw new Error(`not a value sealCompressed sealed with key ${keyIdOf(key)}`);
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]);
}
