import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { randomBytesFromPool } from './random-pool.ts';

/**
 * Payload encryption at rest: AES-256-GCM with a key id stored beside the ciphertext so keys can
 * rotate. Format: `<keyId>:<iv b64>:<tag b64>:<ciphertext b64>`. The first key encrypts; every key
 * decrypts what it sealed (MASTER_KEYS; `npm run cli -- rekey` moves old values to the first key).
 */
export type Encryptor = {
  encrypt(plaintext: string): string;
  decrypt(sealed: string): string;
  /** The id of the key that encrypts (8 hex characters of the key's SHA-256). */
  readonly keyId: string;
  /** The ids of every key this encryptor can decrypt with, the encrypting one first. */
  readonly keyIds: readonly string[];
};

export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export function createEncryptor(current: Buffer, previous: Buffer[] = []): Encryptor {
  const keys = new Map([current, ...previous].map((k) => [keyIdOf(k), k]));
  const currentId = keyIdOf(current);
  return {
    keyId: currentId,
    keyIds: [...keys.keys()],
    encrypt(plaintext) {
      const iv = randomBytesFromPool(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${currentId}:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${body.toString('base64')}`;
    },
    decrypt(sealed) {
      const [keyId, iv, tag, body] = sealed.split(':');
      const key = keyId ? keys.get(keyId) : undefined;
      if (!key || iv === undefined || tag === undefined || body === undefined) {
        throw new Error(`cannot decrypt payload sealed with key ${keyId ?? '?'}`);
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}
