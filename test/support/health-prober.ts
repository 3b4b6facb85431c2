/**
 * Probes GET {base}/health every 20 ms from its own process and prints each probe's duration in ms,
 * one per line, until stdin closes. A separate process, as a monitor would be: probing from the
 * process that uploads the 50 MB body measured that process's own client (its first probe waited
 * about 600 ms behind the upload) instead of the server.
 */
import { get } from 'node:http';

const base = process.argv[2];
if (!base) throw new Error('usage: health-prober.ts <base-url>');
let running = true;
process.stdin.on('end', () => {
  running = false;
});
process.stdin.resume();

const probe = () =>
  new Promise<number>((resolve, reject) => {
    const started = performance.now();
    get(`${base}/health`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 200
          ? resolve(performance.now() - started)
          : reject(new Error(`/health answered ${res.statusCode}`)),
      );
    }).on('error', reject);
  });

while (running) {
  process.stdout.write(`${(await probe()).toFixed(1)}\n`);
  await new Promise((r) => setTimeout(r, 20));
}
