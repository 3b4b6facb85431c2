import { readFileSync } from 'node:fs';
import { parseBankFile } from '../../domain/inbound/index.ts';

/**
 * `cli parse <bank-file> [--summary]`: the normalised JSON of a camt, pain.002 or MT940/MT942 file
 * on stdout. Exit 0 when parsed (also when some blocks were quarantined: they are in the output),
 * 1 when the file is refused (typed error on stderr), 2 on usage errors.
 */
type CommandResult = { stdout?: string; stderr?: string; exitCode: number };

const USAGE = 'usage: cli parse <bank-file> [--summary]\n';

function summarise(result: ReturnType<typeof parseBankFile>): unknown {
  if (!result.ok || result.kind === 'status-report') return result;
  return {
    ...result,
    blocks: result.blocks.map((b) =>
      b.ok
        ? {
            index: b.index,
            ok: true,
            account: b.account,
            entryCount: b.statement.entryCount,
            transactions: b.statement.transactions.length,
            openingBalance: b.statement.openingBalance,
            closingBalance: b.statement.closingBalance,
            warnings: b.warnings,
          }
        : b,
    ),
  };
}

export function parseCommand(args: string[]): CommandResult {
  const summary = args.includes('--summary');
  const files = args.filter((a) => a !== '--summary');
  if (files.length !== 1 || (files[0] ?? '').startsWith('-')) return { stderr: USAGE, exitCode: 2 };
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(files[0] as string);
  } catch (e) {
    return { stderr: `cannot read ${files[0]}: ${e instanceof Error ? e.message : String(e)}\n`, exitCode: 2 };
  }
  const result = parseBankFile(bytes);
  if (!result.ok) return { stderr: `${JSON.stringify({ error: result.error }, null, 2)}\n`, exitCode: 1 };
  return { stdout: `${JSON.stringify(summary ? summarise(result) : result, null, 2)}\n`, exitCode: 0 };
}
