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
 *
 * `--rounds <n>` (with `--baseline`) runs the comparison n times: the first round is the run asked for
 * (peers and references included, its tables are the harness's latest), the others time ours and the
 * baselines only, in alternating order (ours first on even rounds). One run's change over a baseline
 * swings ±10 % on this machine for identical code (a 10 ms MT940 parse, one process per case, the
 * second process of a pair often slower); the median change over the rounds is what a "within 5 %"
 * target is read from (docs/adr/0043).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The real path: the harness runs only when it is its own main module (argv[1] against import.meta.url,
// which Node resolves through symlinks), so a worktree whose ../shared is a symlink would run nothing.
const harnessPath = path.resolve(process.env['BENCH_HARNESS'] || path.resolve(repoRoot, '..', 'shared', 'bench'));
const harness = existsSync(harnessPath) ? realpathSync(harnessPath) : harnessPath;
const impl = path.join(repoRoot, 'bench', 'ours.mjs');

if (!existsSync(path.join(harness, 'run.mjs'))) {
  process.stderr.write(`benchmark harness not found at ${harness}\n`);
  process.exit(2);
}

const baselines: string[] = [];
const passThrough: string[] = [];
let rounds = 1;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--baseline') {
    const rev = argv[++i];
    if (!rev) {
      process.stderr.write('--baseline needs a git revision\n');
      process.exit(2);
    }
    baselines.push(rev);
  } else if (argv[i] === '--rounds') {
    rounds = Number(argv[++i]);
    if (!Number.isInteger(rounds) || rounds < 1) {
      process.stderr.write('--rounds needs a whole number of at least 1\n');
      process.exit(2);
    }
  } else passThrough.push(argv[i] as string);
}

if (!existsSync(path.join(harness, 'node_modules'))) {
  // The harness's node_modules is git-ignored there; install its pinned peers once.
  const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: harness, stdio: 'inherit' });
  if (npm.status !== 0) process.exit(npm.status ?? 1);
}

const work = mkdtempSync(path.join(tmpdir(), 'payops-bench-'));
// CommonJS dependencies bundled into ESM (iconv-lite's `require('buffer')`) need a real `require`.
const esm = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node26',
  banner: {
    js: "import { createRequire as __payopsRequire } from 'node:module'; const require = __payopsRequire(import.meta.url);",
  },
} as const;

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
function resultsDir(args: string[]): string {
  const at = args.lastIndexOf('--out');
  const out = at >= 0 ? args[at + 1] : undefined;
  return out ? path.resolve(out) : path.join(harness, 'results');
}

type Row = { task: string; size: number; label: string; medianNs?: number; error?: string };
/** One comparison of ours with one baseline at one task and size, in one round. */
type Pair = { key: string; task: string; size: number; label: string; baseNs: number; oursNs: number };

/** Ours' median beside each baseline's, per task and size, from the run just written to `dir`. */
function readPairs(dir: string, startedAt: number): Pair[] {
  const file = path.join(dir, 'latest.json');
  if (!existsSync(file)) return [];
  const { meta, results } = JSON.parse(readFileSync(file, 'utf8')) as { meta: { date: string }; results: Row[] };
  if (Date.parse(meta.date) < startedAt) return []; // an older run's file: this one failed before writing
  const median = (task: string, size: number, label: string) =>
    results.find((r) => r.task === task && r.size === size && r.label === label && !r.error)?.medianNs;
  const pairs: Pair[] = [];
  for (const r of results) {
    if (r.label !== 'ours' || r.medianNs === undefined) continue;
    for (const label of new Set(results.map((x) => x.label).filter((l) => l.startsWith('ours@')))) {
      const baseNs = median(r.task, r.size, label);
      if (baseNs === undefined) continue;
      pairs.push({
        key: `${r.task} ${r.size} ${label}`,
        task: r.task,
        size: r.size,
        label,
        baseNs,
        oursNs: r.medianNs,
      });
    }
  }
  return pairs;
}

const ms = (ns: number) => `${(ns / 1e6).toFixed(2)} ms`;
const pct = (ratio: number) => `${((ratio - 1) * 100).toFixed(1)} %`;
const middle = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** The first round's table, and with more rounds each round's change and their median. */
function printComparison(byRound: Pair[][]): void {
  const first = byRound[0] ?? [];
  if (first.length === 0) return;
  const lines = first.map(
    (p) =>
      `| ${p.task} | ${p.size} | ${p.label} ${ms(p.baseNs)} | ours ${ms(p.oursNs)} | ${pct(p.oursNs / p.baseNs)} |`,
  );
  process.stdout.write(
    `\n## ours against the baseline build (same run)\n\n| task | N | baseline median | ours median | change |\n|---|---:|---:|---:|---:|\n${lines.join('\n')}\n`,
  );
  if (byRound.length < 2) return;
  const rows = first.map((p) => {
    const ratios = byRound.map((pairs) => pairs.find((q) => q.key === p.key)).filter((q) => q !== undefined);
    const changes = ratios.map((q) => q.oursNs / q.baseNs);
    return `| ${p.task} | ${p.size} | ${p.label} | ${changes.map(pct).join(', ')} | **${pct(middle(changes))}** |`;
  });
  process.stdout.write(
    `\n## ours against the baseline build over ${byRound.length} rounds (order alternated)\n\n| task | N | baseline | change per round | median change |\n|---|---:|---|---|---:|\n${rows.join('\n')}\n`,
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
  const byRound: Pair[][] = [];
  for (let round = 0; round < rounds; round++) {
    // Round 1 is the run asked for; later ones time ours and the baselines only, in alternating order.
    const order = round % 2 === 0 ? impls : [...impls].reverse();
    const args =
      round === 0
        ? passThrough
        : [...passThrough, '--no-peers', '--no-refs', '--out', path.join(work, `round-${round}`)];
    const startedAt = Date.now() - 1000;
    const run = spawnSync(node, [path.join(harness, 'run.mjs'), ...order.flatMap((p) => ['--impl', p]), ...args], {
      cwd: harness,
      stdio: round === 0 ? 'inherit' : ['ignore', 'ignore', 'inherit'],
    });
    status = run.status ?? 1;
    if (status !== 0) break;
    byRound.push(readPairs(resultsDir(args), startedAt));
  }
  if (status === 0 && baselines.length > 0) printComparison(byRound);
  // The reconciliation task's receivables part (bench/receivables.ts): ours beside a hash join, one process.
  const tasksAt = passThrough.indexOf('--tasks');
  const wantsRecon = tasksAt < 0 || (passThrough[tasksAt + 1] ?? '').split(',').includes('recon');
  if (status === 0 && wantsRecon) {
    const recv = spawnSync(process.execPath, ['--expose-gc', path.join(repoRoot, 'bench', 'receivables.ts')], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
    status = recv.status ?? 1;
  }
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(status);
