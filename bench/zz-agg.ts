import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2]!, 'utf8'));
const byId = new Map(p.nodes.map((n: any) => [n.id, `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/^.*\/(src|node_modules|bench)\//, '$1/')}:${n.callFrame.lineNumber}`]));
const out = new Map<string, number>();
p.samples.forEach((id: number, i: number) => { const k = byId.get(id) as string; out.set(k, (out.get(k) ?? 0) + p.timeDeltas[i]); });
const total = [...out.values()].reduce((a, b) => a + b, 0);
for (const [k, v] of [...out].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log((100 * v / total).toFixed(1).padStart(5), '%', k);
