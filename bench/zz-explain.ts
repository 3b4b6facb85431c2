import { readFileSync } from 'node:fs';
import { recordStatements } from '../test/support/query-plans.ts';
import { startBenchApp } from './support/bench-app.ts';

const keep = process.argv[2] ?? 'bench_journal_10000_embedded';
const seeded = JSON.parse(readFileSync(`/tmp/payops-${keep}.json`, 'utf8'));
const bench = await startBenchApp(20, keep);
const client = await bench.ctx.db.$client.connect();
for (const url of (process.argv[3] ?? '/journal/documents').split(' ')) {
  const full = `${url}${url.includes('?') ? '&' : '?'}companyId=${seeded.company.companyId}`;
  await bench.app.inject({ method: 'GET', url: full, headers: { 'x-api-key': seeded.company.apiKey } });
  const rec = recordStatements(bench.ctx.db.$client);
  const res = await bench.app.inject({ method: 'GET', url: full, headers: { 'x-api-key': seeded.company.apiKey } });
  console.log(url, res.statusCode, res.body.length);
  for (const s of rec.stop()) {
    const r = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, s.values);
    console.log('  >', s.text.replace(/\s+/g, ' ').slice(0, 150));
    if (process.env.PLAN) console.log(r.rows.map((x) => `     ${x['QUERY PLAN']}`).join('\n'));
    else
      console.log(
        '    ',
        r.rows
          .slice(-2)
          .map((x) => x['QUERY PLAN'])
          .join('; '),
      );
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) await client.query(s.text, s.values);
    console.log(`     200 runs: ${((performance.now() - t0) / 200).toFixed(3)} ms each (round trip)`);
  }
}
client.release();
await bench.close();
