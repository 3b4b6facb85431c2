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
/** verify-audit opens the database (the embedded one under DATA_DIR unless DATABASE_URL is set). */
async function verifyAudit(args: string[]): Promise<CommandResult> {
  const { loadConfig } = await import('../platform/config.ts');
  const { createLogger } = await import('../platform/logger.ts');
  const { openPool } = await import('../db/client.ts');
  const { startEmbeddedPostgres } = await import('../db/embedded.ts');
  const { verifyAuditCommand } = await import('../app/audit/verify-cli.ts');
  const config = loadConfig();
  const logger = createLogger('warn');
  const embedded = config.databaseUrl === undefined ? await startEmbeddedPostgres(config.dataDir, logger) : undefined;
  const database = openPool(config.databaseUrl ?? embedded!.url, 2);
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
