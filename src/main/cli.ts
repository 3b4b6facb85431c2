/**
 * Offline command line: the domain without HTTP or a database.
 *   node src/main/cli.ts convert  <bankKey> <payment.json> [--pain-version V]   XML to stdout
 *   node src/main/cli.ts validate <bankKey> <payment.json>                      issues to stderr
 *   node src/main/cli.ts parse    <bank-file>                                   normalised JSON to stdout
 *   node src/main/cli.ts verify-audit <companyId>     checks the company's audit hash chain (DATABASE_URL,
 *                                                     or the embedded database under DATA_DIR)
 *   node src/main/cli.ts rekey [--status] [--batch-size N]   re-seals every encrypted value under the first
 *                                                     key of MASTER_KEYS (resumable); --status only counts
 *   node src/main/cli.ts create-platform <name>       makes a (non-sandbox) platform, prints its id
 *   node src/main/cli.ts create-admin <platformId> <email> <name>   adds a workspace admin; the password
 *                                                     is read from standard input (first line)
 *   node src/main/cli.ts billing activate <companyId> <packageId> | past-due <companyId> <YYYY-MM-DD>
 *                                                     | paid <companyId>     the operator's billing changes
 * Exit status: 0 success, 1 the input has errors, 2 usage.
 */

import { parseCommand } from '../app/bank-files/cli.ts';
import { convertCommand, validateCommand } from '../app/conversion/cli.ts';
import type { Db } from '../db/client.ts';

type CommandResult = { stdout?: string; stderr?: string; exitCode: number };
/**
 * Commands on the database open DATABASE_URL, else the embedded one under DATA_DIR (default ./data,
 * while the service is stopped).
 */
async function withDatabase<T>(
  databaseUrl: string | undefined,
  dataDir: string,
  fn: (db: Db) => Promise<T>,
): Promise<T> {
  const { createLogger } = await import('../platform/logger.ts');
  const { openPool } = await import('../db/client.ts');
  const { startEmbeddedPostgres } = await import('../db/embedded.ts');
  const embedded = databaseUrl === undefined ? await startEmbeddedPostgres(dataDir, createLogger('warn')) : undefined;
  const database = openPool(databaseUrl ?? embedded!.url, 2);
  try {
    return await fn(database.db);
  } finally {
    await database.close();
    await embedded?.stop();
  }
}

/** verify-audit reads only DATABASE_URL and DATA_DIR: verifying hashes needs no MASTER_KEY. */
async function verifyAudit(args: string[]): Promise<CommandResult> {
  const path = await import('node:path');
  const { verifyAuditCommand } = await import('../app/audit/verify-cli.ts');
  const databaseUrl = process.env.DATABASE_URL?.trim() || undefined;
  const dataDir = path.resolve(process.env.DATA_DIR?.trim() || './data');
  return withDatabase(databaseUrl, dataDir, (db) => verifyAuditCommand(db, args));
}

/** rekey takes the service's configuration: MASTER_KEYS (or MASTER_KEY) and the database. */
async function rekeyKeys(args: string[]): Promise<CommandResult> {
  const { loadConfig, ConfigError } = await import('../platform/config.ts');
  const { encryptorFor } = await import('../platform/master-key.ts');
  const { rekeyCommand } = await import('../app/system/rekey-cli.ts');
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) return { stderr: `${error.message}\n`, exitCode: 2 };
    throw error;
  }
  const encryptor = encryptorFor(config);
  return withDatabase(config.databaseUrl, config.dataDir, (db) =>
    rekeyCommand({ db, encryptor, progress: (line) => process.stderr.write(line) }, args),
  );
}

/** The operator's commands on identity and billing: the database only (DATABASE_URL or DATA_DIR). */
async function withOperatorContext<T>(
  fn: (ctx: {
    db: Db;
    clock: typeof import('../platform/clock.ts').systemClock;
    ids: import('../platform/ids.ts').IdGenerator;
    passwords: import('../platform/passwords.ts').PasswordHasher;
  }) => Promise<T>,
): Promise<T> {
  const path = await import('node:path');
  const { systemClock } = await import('../platform/clock.ts');
  const { idGenerator } = await import('../platform/ids.ts');
  const { argon2Hasher } = await import('../platform/passwords.ts');
  const databaseUrl = process.env.DATABASE_URL?.trim() || undefined;
  const dataDir = path.resolve(process.env.DATA_DIR?.trim() || './data');
  return withDatabase(databaseUrl, dataDir, (db) =>
    fn({ db, clock: systemClock, ids: idGenerator(), passwords: argon2Hasher }),
  );
}

/** The first line of standard input (a password piped in, or typed and ended with Enter). */
async function readFirstLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

async function createPlatform(args: string[]): Promise<CommandResult> {
  const { createPlatformCommand } = await import('../app/identity/bootstrap-cli.ts');
  return withOperatorContext((ctx) => createPlatformCommand(ctx, args));
}

async function createAdmin(args: string[]): Promise<CommandResult> {
  const { createAdminCommand } = await import('../app/identity/bootstrap-cli.ts');
  if (process.stdin.isTTY) process.stderr.write('password: ');
  return withOperatorContext((ctx) => createAdminCommand(ctx, args, readFirstLine));
}

async function billing(args: string[]): Promise<CommandResult> {
  const { billingCommand } = await import('../app/billing/cli.ts');
  return withOperatorContext((ctx) => billingCommand(ctx, args));
}

const commands: Record<string, (args: string[]) => Promise<CommandResult> | CommandResult> = {
  convert: convertCommand,
  validate: validateCommand,
  parse: parseCommand,
  'verify-audit': verifyAudit,
  rekey: rekeyKeys,
  'create-platform': createPlatform,
  'create-admin': createAdmin,
  billing,
};

const [name, ...args] = process.argv.slice(2);
const command = name ? commands[name] : undefined;
if (!command) {
  process.stderr.write(`usage: cli <${Object.keys(commands).join('|')}> ...\n`);
  process.exit(2);
}
let result: CommandResult;
try {
  result = await command(args);
} catch (error) {
  // One line that says why (a database that cannot be opened, a data folder in use), never `undefined`.
  const message = error instanceof Error && error.message !== '' ? error.message : String(error);
  result = { stderr: `${name}: ${message}\n`, exitCode: 1 };
}
if (result.stdout) process.stdout.write(result.stdout);
if (result.stderr) process.stderr.write(result.stderr);
process.exitCode = result.exitCode;
