/**
 * Offline command line: the domain without HTTP or a database.
 *   node src/main/cli.ts convert  <bankKey> <payment.json> [--pain-version V]   XML to stdout
 *   node src/main/cli.ts validate <bankKey> <payment.json>                      issues to stderr
 *   node src/main/cli.ts parse    <bank-file>                                   normalised JSON to stdout
 *   node src/main/cli.ts verify-audit <companyId>     checks the company's audit hash chain (DATABASE_URL,
 *                                                     or the embedded database under DATA_DIR)
 *   node src/main/cli.ts rekey [--status] [--batch-size N]   re-seals every encrypted value under the first
 *                                                     key of MASTER_KEYS (resumable); --status only counts
 * Exit status: 0 success, 1 the input has errors, 2 usage.
 */
import { convertCommand, validateCommand } from '../app/conversion/cli.ts';
import { parseCommand } from '../app/inbound/cli.ts';
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

const commands: Record<string, (args: string[]) => Promise<CommandResult> | CommandResult> = {
  convert: convertCommand,
  validate: validateCommand,
  parse: parseCommand,
  'verify-audit': verifyAudit,
  rekey: rekeyKeys,
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
