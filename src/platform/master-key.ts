import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';
import { createEncryptor, type Encryptor } from './encryption.ts';

/**
 * The encryption key: MASTER_KEY when set; for the embedded database a key generated once into
 * DATA_DIR with mode 0600, so a laptop install needs no set-up and keeps its data readable.
 */
export function resolveMasterKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured !== undefined) return Buffer.from(configured, 'base64');
  const file = path.join(dataDir, 'master.key');
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64'), { mode: 0o600, flag: 'wx' });
  return key;
}

/** The process's encryptor: the encrypting key (MASTER_KEYS' first, MASTER_KEY, or the generated one) and the older keys. */
export function encryptorFor(config: Pick<Config, 'masterKey' | 'previousMasterKeys' | 'dataDir'>): Encryptor {
  return createEncryptor(
    resolveMasterKey(config.masterKey, config.dataDir),
    config.previousMasterKeys.map((k) => Buffer.from(k, 'base64')),
  );
}
