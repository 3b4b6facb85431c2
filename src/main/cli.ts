/**
 * Offline command line: the domain without HTTP or a database.
 *   node src/main/cli.ts convert  <bankKey> <payment.json> [--pain-version V]   XML to stdout
 *   node src/main/cli.ts validate <bankKey> <payment.json>                      issues to stderr
 *   node src/main/cli.ts parse    <bank-file>                                   normalised JSON to stdout
 *   node src/main/cli.ts verify-audit <companyId>     checks the company's audit hash chain (DATABASE_URL,
 *                                                     or the embedded database under DATA_DIR)
 * Exit status: 0 success, 1 the input has errors, 2 usage.
 */
import { convertCommand, validateCommand } from '../app/conversion/cli.ts';
import { parseCommand } from '../app/inbound/cli.ts';

type CommandResult = { stdout?: string; stderr?: string; exitCode: number };
/**
 * verify-audit opens the database: DATABASE_URL, else the embedded one under DATA_DIR (default
 * ./data). Only these two variables are read: verifying hashes needs no MASTER_KEY.
 */
async function verifyAudit(args: string[]): Promise<CommandResult> {
  const path = await import('node:path');
  const { createLogger } = await import('../platform/logger.ts');
  const { openPool } = await import('../db/client.ts');
  const { startEmbeddedPostgres } = await import('../db/embedded.ts');
  const { verifyAuditCommand } = await import('../app/audit/verify-cli.ts');
  const databaseUrl = process.env.DATABASE_URL?.trim() || undefined;
  const dataDir = path.resolve(process.env.DATA_DIR?.trim() || './data');
  const embedded = databaseUrl === undefined ? await startEmbeddedPostgres(dataDir, createLogger('warn')) : undefined;
  const database = openPool(databaseUrl ?? embedded!.url, 2);
  try {
    return await verifyAuditCommand(database.db, args);
  } finally {
    await database.close();
    await embedded?.stop();
  }
}

const commands: Record<string, (args: string[]) => Promise<CommandResult> | CommandResult> = {
  convert: convertCommand,
  validate: validateCommand,
  parse: parseCommand,
  'verify-audit': verifyAudit,
};

const [name, ...args] = process.argv.slice(2);
const command = name ? commands[name] : undefined;
if (!command) {
  process.stderr.write(`usage: cli <${Object.keys(commands).join('|')}> ...\n`);
  process.exit(2);
}
const result = await command(args);
if (result.stdout) process.stdout.write(result.stdout);
if (result.stderr) process.stderr.write(result.stderr);
process.exitCode = result.exitCode;
