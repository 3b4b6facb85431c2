/**
 * `npm run bench`: runs the shared peer harness (../shared/bench, next to the repository) with our
 * implementation plugged in as a library (bench/ours.mjs, bundled to JavaScript), under this project's Node.
 * Arguments pass through, e.g. `node bench/run.ts --tasks pain001 --sizes 100,10000`.
 * BENCH_NODE=/usr/bin/node runs the harness, peers and ours alike, under another Node instead: the
 * harness documents Node 20, and its peer figures (PEER-RESULTS.md, the issues' targets) were measured there.
 * BENCH_HARNESS=/path/to/bench uses another copy of the harness (a writable one when ../shared is not:
 * the harness writes its data/ and results/ beside itself).
 *
 * `--baseline <git revision>` (ours, not the harness's; repeatable) adds the build of that revision as
 * one more implementation, `ours@<revision>`, run in the same process order right before ours at each
 * size: "no slowdown" targets compare the two in one run, on the same load. Its bench/ and src/ are
 * taken with `git archive` into a temporary directory and bundled like ours, against this checkout's
 * node_modules (the dependencies of the code timed must be the same versions). Nothing is kept.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const harness = path.resolve(process.env['BENCH_HARNESS'] || path.resolve(repoRoot, '..', 'shared', 'bench'));
const impl = path.join(repoRoot, 'bench', 'ours.mjs');

if (!existsSync(path.join(harness, 'run.mjs'))) {
  process.stderr.write(`benchmark harness not found at ${harness}\n`);
  process.exit(2);
}

const baselines: string[] = [];
const passThrough: string[] = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--baseline') {
    const rev = argv[++i];
    if (!rev) {
      process.stderr.write('--baseline needs a git revision\n');
      process.exit(2);
    }
    baselines.push(rev);
  } else passThrough.push(argv[i] as string);
}

if (!existsSync(path.join(harness, 'node_modules'))) {
  // The harness's node_modules is git-ignored there; install its pinned peers once.
  const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: harness, stdio: 'inherit' });
  if (npm.status !== 0) process.exit(npm.status ?? 1);
}

const work = mkdtempSync(path.join(tmpdir(), 'payops-bench-'));
const esm = { bundle: true, platform: 'node', format: 'esm', target: 'node26' } as const;

/** Bundles bench/ours.mjs as it is at `rev`, labelled ours@<short hash>; returns the bundle's path. */
async function bundleBaseline(rev: string, n: number): Promise<string> {
  const parsed = spawnSync('git', ['rev-parse', '--short', '--verify', `${rev}^{commit}`], { cwd: repoRoot });
  if (parsed.status !== 0) throw new Error(`--baseline ${rev}: not a commit of this repository`);
  const short = parsed.stdout.toString().trim();
  const tree = path.join(work, `baseline-${n}`);
  mkdirSync(tree);
  const files = ['bench', 'src', 'package.json', 'tsconfig.json'];
  const archive = spawnSync('git', ['archive', '--format=tar', short, ...files], {
    cwd: repoRoot,
    maxBuffer: 1 << 30,
  });
  if (archive.status !== 0) throw new Error(`--baseline ${rev}: git archive failed: ${archive.stderr.toString()}`);
  const tar = spawnSync('tar', ['-x', '-C', tree], { input: archive.stdout });
  if (tar.status !== 0) throw new Error(`--baseline ${rev}: tar failed: ${tar.stderr.toString()}`);
  if (!existsSync(path.join(tree, 'bench', 'ours.mjs'))) throw new Error(`--baseline ${rev} has no bench/ours.mjs`);
  const outfile = path.join(work, `ours-${short}.mjs`);
  // A local export wins over `export *`: the same module under its own label in the harness's tables.
  const contents = `export * from './bench/ours.mjs';\nexport const name = ${JSON.stringify(`ours@${short}`)};\n`;
  await build({
    ...esm,
    stdin: { contents, resolveDir: tree, sourcefile: 'baseline.mjs', loader: 'js' },
    nodePaths: [path.join(repoRoot, 'node_modules')],
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

/** Where the harness writes latest.json: its --out, else results/ beside it. */
function resultsDir(): string {
  const at = passThrough.lastIndexOf('--out');
  const out = at >= 0 ? passThrough[at + 1] : undefined;
  return out ? path.resolve(out) : path.join(harness, 'results');
}

type Row = { task: string; size: number; label: string; medianNs?: number; error?: string };

/** One line per task and size: our median over each baseline's, from the run just written. */
function printComparison(startedAt: number): void {
  const file = path.join(resultsDir(), 'latest.json');
  if (!existsSync(file)) return;
  const { meta, results } = JSON.parse(readFileSync(file, 'utf8')) as { meta: { date: string }; results: Row[] };
  if (Date.parse(meta.date) < startedAt) return; // an older run's file: this one failed before writing
  const median = (task: string, size: number, label: string) =>
    results.find((r) => r.task === task && r.size === size && r.label === label && !r.error)?.medianNs;
  const lines: string[] = [];
  for (const r of results) {
    if (r.label !== 'ours' || r.medianNs === undefined) continue;
    for (const label of new Set(results.map((x) => x.label).filter((l) => l.startsWith('ours@')))) {
      const base = median(r.task, r.size, label);
      if (base === undefined) continue;
      const ms = (ns: number) => `${(ns / 1e6).toFixed(2)} ms`;
      const change = ((r.medianNs / base - 1) * 100).toFixed(1);
      lines.push(`| ${r.task} | ${r.size} | ${label} ${ms(base)} | ours ${ms(r.medianNs)} | ${change} % |`);
    }
  }
  if (lines.length === 0) return;
  process.stdout.write(
    `\n## ours against the baseline build (same run)\n\n| task | N | baseline median | ours median | change |\n|---|---:|---:|---:|---:|\n${lines.join('\n')}\n`,
  );
}

let status = 1;
try {
  const impls: string[] = [];
  for (const [n, rev] of baselines.entries()) impls.push(await bundleBaseline(rev, n));
  // The implementation is bundled to one JavaScript module first, as the peers ship: loading .ts
  // sources through Node's type stripping costs every case process about 40 MB before any work, which
  // the peak-memory column would otherwise charge to the conversion or parse. Same code, same Node.
  const bundled = path.join(work, 'ours.mjs');
  await build({ ...esm, entryPoints: [impl], outfile: bundled });
  impls.push(bundled);
  const node = process.env['BENCH_NODE'] || process.execPath;
  const startedAt = Date.now() - 1000;
  const run = spawnSync(node, [path.join(harness, 'run.mjs'), ...impls.flatMap((p) => ['--impl', p]), ...passThrough], {
    cwd: harness,
    stdio: 'inherit',
  });
  status = run.status ?? 1;
  if (status === 0 && baselines.length > 0) printComparison(startedAt);
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(status);
