import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { registerApiLoad } from '../../src/http/plugins/api-load.ts';
import { apiLoad } from '../../src/platform/api-load.ts';

describe('the API load the workers of a ROLE=all process yield to', () => {
  it('counts requests from their arrival until their response ends or their client goes away', async () => {
    let now = 0;
    const load = apiLoad(() => now);
    const app = Fastify();
    registerApiLoad(app, load);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    app.get('/slow', async () => {
      await held;
      return { ok: true };
    });
    app.get('/fast', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    try {
      for (let i = 0; i < 10; i++) assert.equal((await fetch(`${url}/fast`)).status, 200);
      now += 100;
      assert.equal(load.saturated(), false, 'answered requests are no longer counted');
      const aborted = new AbortController();
      const slow = [1, 2, 3].map(() => fetch(`${url}/slow`).then((r) => r.json()));
      const gone = fetch(`${url}/slow`, { signal: aborted.signal }).catch(() => 'aborted');
      for (let i = 0; i < 100 && !load.saturated(); i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(load.saturated(), true, 'four requests in flight');
      aborted.abort();
      assert.equal(await gone, 'aborted');
      for (let i = 0; i < 100 && load.saturated(); i++) {
        now += 100;
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal(load.saturated(), false, 'the client that went away is no longer counted');
      release();
      assert.deepEqual(await Promise.all(slow), [{ ok: true }, { ok: true }, { ok: true }]);
    } finally {
      await app.close();
    }
  });

  it('is not registered without a load to count (ROLE=api, or the app in a test)', async () => {
    const app = Fastify();
    registerApiLoad(app, undefined);
    app.get('/', async () => 'ok');
    assert.equal((await app.inject({ url: '/' })).statusCode, 200);
    await app.close();
  });
});
