/**
 * Function lengths: every function, method, accessor and arrow under the given folders that is longer than
 * `--max` lines (counted from its first token to its closing brace, nested functions included, because a
 * reader has to hold the whole body at once). Issue 35's rule of the house: nothing on the submit and ingest
 * paths is over 80 lines, so a long function is split by phase into named helpers instead.
 *
 *   node scripts/function-lengths.ts                 # the guarded paths, limit 80, exit 1 when any is over
 *   node scripts/function-lengths.ts --max 60 src/db # list only (exit 0): folders (or files) outside the guard
 *
 * With no folder the guarded paths are scanned and the exit status fails `npm run lint`; with folders
 * the list is informational unless `--check` is given. Test files are skipped (they are not product code).
 * It uses the TypeScript 5 compiler API for the syntax tree only (no type checking), so it takes ~1 s.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** The submit and ingest paths (issue 35, "Done when"). */
const GUARDED = ['src/domain', 'src/app', 'src/http/routes', 'src/workers', 'src/channels'];
const DEFAULT_MAX = 80;

interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
}

function parseArgs(argv: string[]): { max: number; folders: string[]; check: boolean } {
  let max = DEFAULT_MAX;
  let check = false;
  const folders: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--max') max = Number(argv[++i]);
    else if (arg === '--check') check = true;
    else folders.push(arg);
  }
  if (!Number.isInteger(max) || max < 1) throw new Error('--max needs a positive whole number of lines');
  return folders.length === 0 ? { max, folders: GUARDED, check: true } : { max, folders, check };
}

function sourceFiles(folder: string, out: string[]): string[] {
  if (statSync(folder).isFile()) return [folder];
  for (const entry of readdirSync(folder)) {
    const full = path.join(folder, entry);
    if (statSync(full).isDirectory()) sourceFiles(full, out);
    else if (/\.(ts|tsx|mts)$/.test(entry) && !/\.(test|d)\.ts$/.test(entry)) out.push(full);
  }
  return out;
}

/** A readable name: the declaration's own, else the variable, property or class member it is assigned to. */
function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const own = (node as { name?: ts.Node }).name;
  if (own) return own.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText(source);
  }
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

function isFunctionLike(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function longFunctions(file: string, max: number, out: LongFunction[]): void {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) out.push({ file, line: first + 1, name: nameOf(node, source), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

const { max, folders, check } = parseArgs(process.argv.slice(2));
const found: LongFunction[] = [];
for (const folder of folders) for (const file of sourceFiles(folder, [])) longFunctions(file, max, found);
found.sort((a, b) => b.lines - a.lines);
for (const f of found) console.log(`${String(f.lines).padStart(5)}  ${f.name}  ${f.file}:${f.line}`);
if (found.length > 0 && check) {
  console.error(`function-lengths: ${found.length} function(s) over ${max} lines under ${folders.join(', ')}`);
  process.exit(1);
}
