/**
 * `npm run bench`: runs the shared peer harness (../shared/bench, next to the repository) with our
 * implementation plugged in as a library (bench/ours.mjs, bundled to JavaScript), under this project's Node.
 * Arguments pass through, e.g. `node bench/run.ts --tasks pain001 --sizes 100,10000`.
 * BENCH_NODE=/usr/bin/node runs the harness, peers and ours alike, under another Node instead: the
 * harness documents Node 20, and its peer figures (PEER-RESULTS.md, the issues' targets) were measured there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const harness = path.resolve(repoRoot, '..', 'shared', 'bench');
const impl = path.join(repoRoot, 'bench', 'ours.mjs');

if (!existsSync(path.join(harness, 'run.mjs'))) {
  process.stderr.write(`benchmark harness not found at ${harness}\n`);
  process.exit(2);
}
if (!existsSync(path.join(harness, 'node_modules'))) {
  // The harness's node_modules is git-ignored there; install its pinned peers once.
  const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: harness, stdio: 'inherit' });
  if (npm.status !== 0) process.exit(npm.status ?? 1);
}
// The implementation is bundled to one JavaScript module first, as the peers ship: loading .ts
// sources through Node's type stripping costs every case process about 40 MB before any work, which
// the peak-memory column would otherwise charge to the conversion or parse. Same code, same Node.
const bundled = path.join(mkdtempSync(path.join(tmpdir(), 'payops-bench-')), 'ours.mjs');
await build({ entryPoints: [impl], bundle: true, platform: 'node', format: 'esm', target: 'node26', outfile: bundled });
const node = process.env['BENCH_NODE'] || process.execPath;
const run = spawnSync(node, [path.join(harness, 'run.mjs'), '--impl', bundled, ...process.argv.slice(2)], {
  cwd: harness,
  stdio: 'inherit',
});
rmSync(path.dirname(bundled), { recursive: true, force: true });
process.exit(run.status ?? 1);
