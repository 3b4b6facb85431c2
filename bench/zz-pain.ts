import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { convert } from './adapters/pain001.ts';
const size = Number(process.argv[2] ?? 10000);
const batch = JSON.parse(readFileSync(`/work/wt/shared/bench/data/payments-${size}.json`, 'utf8'));
for (let i = 0; i < Number(process.env.WARM ?? 30); i++) convert(batch);
const N = Number(process.argv[3] ?? 50);
const t = process.cpuUsage(); const w = performance.now();
for (let i = 0; i < N; i++) convert(batch);
const u = process.cpuUsage(t);
console.log(size, 'ms per file cpu', ((u.user + u.system) / N / 1000).toFixed(3), 'wall', ((performance.now() - w) / N).toFixed(3), 'µs/item', ((performance.now() - w) / N * 1000 / size).toFixed(3));
if (process.argv[4]) {
  const s = new Session(); s.connect(); await s.post('Profiler.enable'); await s.post('Profiler.setSamplingInterval', { interval: 100 }); await s.post('Profiler.start');
  for (let i = 0; i < N; i++) convert(batch);
  const { profile } = await s.post('Profiler.stop');
  writeFileSync(process.argv[4], JSON.stringify(profile));
}
