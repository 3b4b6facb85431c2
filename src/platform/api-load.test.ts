import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiLoad } from './api-load.ts';

/** A clock the gate's own waits move, and `at` callbacks run when it passes their time. */
function fakeTime() {
  const time = { now: 1_000, at: [] as Array<[number, () => void]> };
  const wait = async (ms: number) => {
    time.now += ms;
    for (const [t, f] of time.at.filter(([t]) => t <= time.now)) {
      f();
      time.at = time.at.filter(([u]) => u !== t);
    }
  };
  return { time, now: () => time.now, wait };
}

describe('apiLoad', () => {
  it('is saturated from the 4th request in flight, and for 50 ms after the count drops below it', () => {
    const { time, now, wait } = fakeTime();
    const load = apiLoad(now, wait);
    const done = [load.begin(), load.begin(), load.begin()];
    assert.equal(load.saturated(), false, 'three requests in flight are a client with a few connections');
    done.push(load.begin());
    assert.equal(load.saturated(), true);
    done[3]!();
    done[3]!(); // a second close of the same request counts once
    assert.equal(load.saturated(), true, 'within the hold after the burst');
    time.now += 49;
    assert.equal(load.saturated(), true);
    time.now += 2;
    assert.equal(load.saturated(), false, 'three in flight again, the hold over');
    for (const d of done.slice(0, 3)) d();
    done.push(load.begin(), load.begin(), load.begin());
    assert.equal(load.saturated(), false, 'the double close above did not leave a request counted');
  });

  it('lets a worker through at once when the API is not saturated, else after at most 2 s', async () => {
    const { time, now, wait } = fakeTime();
    const load = apiLoad(now, wait);
    await load.yieldToApi();
    assert.equal(time.now, 1_000, 'no wait');
    for (let i = 0; i < 4; i++) load.begin();
    await load.yieldToApi();
    assert.ok(time.now >= 3_000 && time.now < 3_010, `waited ${time.now - 1_000} ms while saturated`);
  });

  it('lets a waiting worker through once the burst ends and its hold is over', async () => {
    const { time, now, wait } = fakeTime();
    const load = apiLoad(now, wait);
    const ends = [load.begin(), load.begin(), load.begin(), load.begin()];
    time.at.push([
      1_100,
      () => {
        for (const end of ends) end();
      },
    ]);
    await load.yieldToApi();
    assert.ok(
      time.now >= 1_150 && time.now < 1_160,
      `waited ${time.now - 1_000} ms: the burst's 100 and the hold's 50`,
    );
  });
});
