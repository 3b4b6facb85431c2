import { hash, verify } from '@node-rs/argon2';

/** Passwords are hashed with argon2id (OWASP minimum parameters: 19 MiB, 2 passes). */
export type PasswordHasher = {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
};

// algorithm 2 is Argon2id (the package's const enum cannot be imported under type stripping).
const OPTIONS = { algorithm: 2 as const, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const argon2Hasher: PasswordHasher = {
  hash: (password) => hash(password, OPTIONS),
  verify: async (digest, password) => {
    try {
      return await verify(digest, password);
    } catch {
      return false;
    }
  },
};
