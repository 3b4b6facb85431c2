import type { Db } from '../../db/client.ts';
import { countByKeyId, nextSealedBatch, replaceSealed } from '../../db/repositories/sealed-values.ts';
import { SEALED_COLUMNS, type SealedColumn, sealedColumnName } from '../../db/sealed-columns.ts';
import type { Encryptor } from '../../platform/encryption.ts';

/**
 * Master key rotation (`npm run cli -- rekey`): every sealed value (payloads, files, channel
 * credentials, signing certificates, webhook secrets: SEALED_COLUMNS) not yet under the encrypting
 * key is decrypted with the key it names and sealed again under the encrypting key, a batch per
 * transaction. Nothing is kept between runs: what is already under the new key is skipped, so an
 * interrupted run simply resumes where the values are. Services keep running meanwhile (each value
 * is replaced only if unchanged since read). When the usage report shows no value under an old key,
 * that key can leave MASTER_KEYS (docs/adr/0031-master-key-rotation.md).
 */
export type KeyUsage = { column: string; byKeyId: Record<string, number> };
export type RekeyProgress = { column: string; done: number; total: number };
export type RekeyReport = {
  keyId: string;
  rewritten: number;
  /** Values left under other keys after the run (changed by a process still sealing with an old key). */
  leftUnderOldKeys: number;
  usage: KeyUsage[];
};

export class UnknownKeyError extends Error {}

type RekeyDeps = { db: Db; encryptor: Encryptor };

/** How many values of each sealed column each key id sealed. */
export async function keyUsage(deps: { db: Db }): Promise<KeyUsage[]> {
  const usage: KeyUsage[] = [];
  for (const c of SEALED_COLUMNS) {
    usage.push({ column: sealedColumnName(c), byKeyId: Object.fromEntries(await countByKeyId(deps.db, c)) });
  }
  return usage;
}

const underOldKeys = (usage: KeyUsage[], keyId: string) =>
  usage.reduce(
    (n, u) => n + Object.entries(u.byKeyId).reduce((m, [id, count]) => (id === keyId ? m : m + count), 0),
    0,
  );

/** Values sealed under a key the encryptor does not hold: rekeying them is impossible, so refuse up front. */
function unknownKeys(usage: KeyUsage[], encryptor: Encryptor): string[] {
  const known = new Set(encryptor.keyIds);
  return [...new Set(usage.flatMap((u) => Object.keys(u.byKeyId)))].filter((id) => !known.has(id)).sort();
}

async function rekeyColumn(
  deps: RekeyDeps,
  c: SealedColumn,
  total: number,
  options: { batchSize: number; maxBatchBytes: number; onProgress?: (p: RekeyProgress) => void; signal?: AbortSignal },
): Promise<number> {
  const { encryptor } = deps;
  let after: string | null = null;
  let seen = 0;
  let written = 0;
  for (;;) {
    if (options.signal?.aborted) throw options.signal.reason ?? new Error('rekey aborted');
    const batch = await deps.db.transaction(async (tx) => {
      const rows = await nextSealedBatch(tx, c, encryptor.keyId, after, options.batchSize, options.maxBatchBytes);
      const changes = rows.map((row) => ({
        key: row.key,
        from: row.sealed,
        to: encryptor.reseal(row.sealed),
      }));
      return { rows: rows.length, last: rows.at(-1)?.key ?? null, written: await replaceSealed(tx, c, changes) };
    });
    if (batch.rows === 0) return written;
    after = batch.last;
    seen += batch.rows;
    written += batch.written;
    options.onProgress?.({ column: sealedColumnName(c), done: Math.min(seen, total), total });
  }
}

export async function rekey(
  deps: RekeyDeps,
  options: {
    batchSize?: number;
    maxBatchBytes?: number;
    onProgress?: (p: RekeyProgress) => void;
    signal?: AbortSignal;
  } = {},
): Promise<RekeyReport> {
  const before = await keyUsage(deps);
  const unknown = unknownKeys(before, deps.encryptor);
  if (unknown.length > 0) {
    throw new UnknownKeyError(
      `values are sealed under key id(s) ${unknown.join(', ')}, which MASTER_KEYS does not hold (it holds ${deps.encryptor.keyIds.join(', ')}); add the old key after the new one and run rekey again`,
    );
  }
  let rewritten = 0;
  for (const [i, c] of SEALED_COLUMNS.entries()) {
    const total = underOldKeys([before[i]!], deps.encryptor.keyId);
    if (total === 0) continue;
    rewritten += await rekeyColumn(deps, c, total, {
      batchSize: options.batchSize ?? 200,
      maxBatchBytes: options.maxBatchBytes ?? 32 * 1024 * 1024,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
  const usage = await keyUsage(deps);
  return { keyId: deps.encryptor.keyId, rewritten, leftUnderOldKeys: underOldKeys(usage, deps.encryptor.keyId), usage };
}
