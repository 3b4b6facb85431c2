import type { Db } from '../../db/client.ts';
import { pendingMigrations } from '../../db/migrate.ts';
import type { Encryptor } from '../../platform/encryption.ts';
import { type KeyUsage, keyUsage, rekey, UnknownKeyError } from './rekey.ts';

type CommandResult = { stdout?: string; stderr?: string; exitCode: number };

const USAGE = 'usage: cli rekey [--status] [--batch-size N]\n';

function usageTable(usage: KeyUsage[], current: string): string {
  const lines = usage
    .filter((u) => Object.keys(u.byKeyId).length > 0)
    .map((u) => {
      const parts = Object.entries(u.byKeyId)
        .sort(([a], [b]) => (a === current ? -1 : b === current ? 1 : a.localeCompare(b)))
        .map(([id, n]) => `${id}${id === current ? ' (current)' : ''}: ${n}`);
      return `  ${u.column}  ${parts.join(', ')}\n`;
    });
  return lines.length > 0 ? lines.join('') : '  (no sealed values)\n';
}

/**
 * `cli rekey`: re-seals every value under the encrypting key (the first of MASTER_KEYS), printing
 * progress to stderr; `--status` only reports how many values each key id sealed. Exit 0 when no
 * value is left under another key (the old keys can then leave MASTER_KEYS), 1 when some are (a
 * process still encrypts with an old key: fix its MASTER_KEYS and run again), 2 for usage errors.
 */
export async function rekeyCommand(
  deps: { db: Db; encryptor: Encryptor; progress: (line: string) => void },
  args: string[],
): Promise<CommandResult> {
  let statusOnly = false;
  let batchSize = 200;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--status') statusOnly = true;
    else if (arg === '--batch-size' && /^\d+$/.test(args[i + 1] ?? '') && Number(args[i + 1]) > 0) {
      batchSize = Number(args[++i]);
    } else return { stderr: USAGE, exitCode: 2 };
  }
  const pending = await pendingMigrations(deps.db.$client);
  if (pending > 0) {
    return { stderr: `${pending} database migration(s) pending: run \`npm run migrate\` first\n`, exitCode: 2 };
  }
  const current = deps.encryptor.keyId;
  if (statusOnly) {
    const usage = await keyUsage(deps);
    const old = usage.reduce(
      (n, u) =>
        n +
        Object.entries(u.byKeyId)
          .filter(([id]) => id !== current)
          .reduce((m, [, c]) => m + c, 0),
      0,
    );
    return {
      stdout: `sealed values by key id (encrypting key ${current}):\n${usageTable(usage, current)}${old === 0 ? 'nothing is sealed under an old key\n' : `${old} value(s) still under old keys: run \`npm run cli -- rekey\`\n`}`,
      exitCode: old === 0 ? 0 : 1,
    };
  }
  try {
    const report = await rekey(deps, {
      batchSize,
      onProgress: (p) => deps.progress(`rekey ${p.column}: ${p.done}/${p.total}\n`),
    });
    const verdict =
      report.leftUnderOldKeys === 0
        ? `nothing is sealed under an old key: every key but ${report.keyId} can leave MASTER_KEYS\n`
        : `${report.leftUnderOldKeys} value(s) are still under an old key (a process still encrypts with one?): check every process's MASTER_KEYS starts with ${report.keyId}, then run rekey again\n`;
    return {
      stdout: `re-sealed ${report.rewritten} value(s) under key ${report.keyId}\n${usageTable(report.usage, report.keyId)}${verdict}`,
      exitCode: report.leftUnderOldKeys === 0 ? 0 : 1,
    };
  } catch (error) {
    if (error instanceof UnknownKeyError) return { stderr: `${error.message}\n`, exitCode: 2 };
    throw error;
  }
}
