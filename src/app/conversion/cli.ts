/**
 * Offline `convert` and `validate` commands: a canonical payment file checked and converted for one bank,
 * without HTTP or a database. XML goes to stdout, issues (as JSON lines) to stderr.
 * Exit status: 0 success (warnings allowed), 1 the input has errors, 2 usage.
 */
import { readFile } from 'node:fs/promises';
import type { ValidationIssue } from '../../domain/conversion/index.ts';
import { convertPayment, validatePayment } from '../../domain/conversion/index.ts';

type CommandResult = { stdout?: string; stderr?: string; exitCode: number };

const CONVERT_USAGE = 'usage: cli convert <bankKey> <payment.json> [--pain-version V]\n';
const VALIDATE_USAGE = 'usage: cli validate <bankKey> <payment.json> [--pain-version V]\n';

type Parsed = { bankKey: string; file: string; painVersion?: string };

function parseArgs(args: string[]): Parsed | undefined {
  const positional: string[] = [];
  let painVersion: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--pain-version') {
      painVersion = args[++i];
      if (painVersion === undefined) return undefined;
    } else if (a.startsWith('--pain-version=')) painVersion = a.slice('--pain-version='.length);
    else if (a.startsWith('--')) return undefined;
    else positional.push(a);
  }
  const [bankKey, file] = positional;
  if (!bankKey || !file || positional.length !== 2) return undefined;
  return painVersion === undefined ? { bankKey, file } : { bankKey, file, painVersion };
}

async function load(file: string): Promise<{ ok: true; value: unknown } | { ok: false; result: CommandResult }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    return { ok: false, result: { stderr: `cannot read ${file}: ${(e as Error).message}\n`, exitCode: 2 } };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, result: { stderr: `${file} is not JSON: ${(e as Error).message}\n`, exitCode: 1 } };
  }
}

function issueLines(issues: ValidationIssue[]): string {
  return issues.map((i) => `${JSON.stringify(i)}\n`).join('');
}

export async function convertCommand(args: string[]): Promise<CommandResult> {
  const parsed = parseArgs(args);
  if (!parsed) return { stderr: CONVERT_USAGE, exitCode: 2 };
  const input = await load(parsed.file);
  if (!input.ok) return input.result;
  const r = convertPayment(input.value, parsed.bankKey, {
    now: new Date(),
    ...(parsed.painVersion === undefined ? {} : { painVersion: parsed.painVersion }),
  });
  if (!r.ok) return { stderr: `${r.error.message}\n`, exitCode: 2 };
  if (!r.value.ok) return { stderr: issueLines(r.value.issues), exitCode: 1 };
  const dropped = r.value.unknownFieldsDropped.map((p) => `${JSON.stringify({ unknownFieldDropped: p })}\n`).join('');
  return { stdout: r.value.xml, stderr: issueLines(r.value.warnings) + dropped, exitCode: 0 };
}

export async function validateCommand(args: string[]): Promise<CommandResult> {
  const parsed = parseArgs(args);
  if (!parsed) return { stderr: VALIDATE_USAGE, exitCode: 2 };
  const input = await load(parsed.file);
  if (!input.ok) return input.result;
  const r = validatePayment(input.value, parsed.bankKey, {
    now: new Date(),
    ...(parsed.painVersion === undefined ? {} : { painVersion: parsed.painVersion }),
  });
  if (!r.ok) return { stderr: `${r.error.message}\n`, exitCode: 2 };
  const v = r.value;
  const summary = `${JSON.stringify({ valid: v.valid, painVersion: v.painVersion, autoSelected: v.autoSelected, autoFilled: v.autoFilled, unknownFieldsDropped: v.unknownFieldsDropped })}\n`;
  return { stdout: summary, stderr: issueLines(v.issues), exitCode: v.valid ? 0 : 1 };
}
