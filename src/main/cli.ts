/**
 * Offline command line: the domain without HTTP or a database.
 *   node src/main/cli.ts convert  <bankKey> <payment.json> [--pain-version V]   XML to stdout
 *   node src/main/cli.ts validate <bankKey> <payment.json>                      issues to stderr
 *   node src/main/cli.ts parse    <bank-file>                                   normalised JSON to stdout
 * Exit status: 0 success, 1 the input has errors, 2 usage.
 */
import { convertCommand, validateCommand } from '../app/conversion/cli.ts';
import { parseCommand } from '../app/inbound/cli.ts';

type CommandResult = { stdout?: string; stderr?: string; exitCode: number };
const commands: Record<string, (args: string[]) => Promise<CommandResult> | CommandResult> = {
  convert: convertCommand,
  validate: validateCommand,
  parse: parseCommand,
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
