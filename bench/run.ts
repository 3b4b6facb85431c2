/**
 * `npm run bench`: runs the shared peer harness (../shared/bench, next to the repository) with our
 * implementation plugged in as a library (`--impl bench/ours.mjs`), under this project's Node.
 * Arguments pass through, e.g. `node bench/run.ts --tasks pain001 --sizes 100,10000`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
const run = spawnSync(process.execPath, [path.join(harness, 'run.mjs'), '--impl', impl, ...process.argv.slice(2)], {
  cwd: harness,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
