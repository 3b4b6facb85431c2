/**
 * Delayed jobs wake their worker when due (issue 21, docs/adr/0041): no NOTIFY announces a job whose
 * startAfter is in the future, so the process that sent it (the demo bank's inbox schedules each
 * reply at its reply time) calls the registered wake once it is due, and the worker fetches it then
 * instead of polling every half second. At each wake the job is there to fetch.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { JOBS } from '../../src/workers/jobs.ts';
import { startTestApp, type TestApp } from '../harness.ts';

let t: TestApp;

before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

function reply(documentId: string, replyAt: Date) {
  return { documentId, platformId: 'plt_wake', companyId: 'cmp_wake', replyAt: replyAt.toISOString() };
}

test('a delayed job sent by this process wakes the worker when it is due, and is fetchable then', async () => {
  const queue = t.jobQueue.queue;
  const fetched: string[][] = [];
  let woken = 0;
  let wakes: () => void = () => {};
  const twoWakes = new Promise<void>((resolve) => {
    wakes = resolve;
  });
  queue.whenDue?.('demoBankReply', () => {
    woken++;
    void t.jobQueue.boss.fetch(JOBS.demoBankReply.name, { batchSize: 10 }).then((jobs) => {
      fetched.push(jobs.map((j) => (j.data as { documentId: string }).documentId));
      if (fetched.length === 2) wakes();
    });
  });
  const first = new Date(Date.now() + 400);
  const second = new Date(Date.now() + 900);
  await queue.send('demoBankReply', reply('doc_wake_1', first), { startAfter: first });
  await queue.sendMany('demoBankReply', [reply('doc_wake_2', second), reply('doc_wake_3', second)], {
    startAfter: second,
  });
  // Nothing is due yet: a fetch now finds nothing.
  assert.deepEqual(await t.jobQueue.boss.fetch(JOBS.demoBankReply.name, { batchSize: 10 }), []);
  await Promise.race([
    twoWakes,
    new Promise((_, reject) => setTimeout(() => reject(new Error('the worker was never woken')), 20_000)),
  ]);
  assert.equal(woken, 2);
  assert.deepEqual(fetched[0], ['doc_wake_1']);
  assert.deepEqual([...fetched[1]!].sort(), ['doc_wake_2', 'doc_wake_3']);
});
