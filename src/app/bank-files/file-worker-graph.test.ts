import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { StrippedGraph, strippedWorker } from '../../platform/off-loop/stripped-worker.ts';

const ENTRY = new URL('./file-worker-thread.ts', import.meta.url);

test("the file worker's graph is closed: every relative module a stripped source imports is in it", async () => {
  const graph = new StrippedGraph(ENTRY);
  await graph.warm();
  const sources = new Map(graph.sources());
  assert.ok(sources.size > 20, `${sources.size} modules`);
  for (const name of ['file-worker-thread.ts', 'prepare-file.ts', 'ingest-body.ts', 'statement-match.ts']) {
    assert.ok(
      [...sources.keys()].some((url) => url.endsWith(`/${name}`)),
      name,
    );
  }
  for (const [url, code] of sources) {
    assert.doesNotMatch(code, /^import type /m, `${url} still has a type-only import`);
    for (const m of code.matchAll(/from\s*['"](\.{1,2}\/[^'"]+\.ts)['"]/g)) {
      assert.ok(sources.has(new URL(m[1]!, url).href), `${url} imports ${m[1]}, missing from the graph`);
    }
  }
});

test('a stripped worker runs the file worker from the sources it was handed', async () => {
  const worker: Worker = strippedWorker(ENTRY, new StrippedGraph(ENTRY), {});
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  const online = new Promise<void>((resolve, reject) => {
    worker.once('online', resolve);
    worker.once('error', reject);
  });
  await online;
  // A read of a body it never saw answers a refusal: the modules loaded and the handler ran.
  const answer = new Promise<unknown>((resolve) => worker.once('message', resolve));
  worker.postMessage({ op: 'read-json', seq: 1, file: 999 });
  const reply = (await answer) as { seq: number; ok: boolean; value: { ok: boolean; code?: string } };
  assert.equal(reply.seq, 1);
  assert.equal(reply.ok, true);
  assert.equal(reply.value.ok, false);
  await worker.terminate();
  await exited;
});
