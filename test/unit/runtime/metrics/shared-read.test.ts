/** A read of the runtime database shared by scrapes: once per freshness time, one at a time, each caller waiting a bounded time. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sharedRead } from '../../../../runtime/metrics/shared-read.js';

test('callers within the freshness time share one read; after it, the next caller reads again', async () => {
  let reads = 0;
  const shared = sharedRead(async () => ++reads, { freshMs: 1000, timeoutMs: 1000 });
  const now = Date.now();
  assert.deepEqual(await Promise.all([shared.get(now), shared.get(now), shared.get(now)]), [1, 1, 1]);
  assert.equal(await shared.get(now + 999), 1);
  assert.equal(await shared.get(now + 60_000), 2);
  assert.equal(reads, 2);
});

test('a read under way serves every caller that arrives meanwhile', async () => {
  let reads = 0;
  const shared = sharedRead(
    async () => {
      reads += 1;
      await sleep(50);
      return reads;
    },
    { freshMs: 0, timeoutMs: 1000 },
  );
  const answers = await Promise.all(Array.from({ length: 20 }, () => shared.get()));
  assert.deepEqual(new Set(answers), new Set([1]));
  assert.equal(reads, 1);
});

test('a failed read is not kept, and a hanging one lets each caller go after the time limit', async () => {
  let fail = true;
  const shared = sharedRead(
    async () => {
      if (fail) throw new Error('down');
      return 'up';
    },
    { freshMs: 10_000, timeoutMs: 1000 },
  );
  await assert.rejects(shared.get(), /down/);
  fail = false;
  assert.equal(await shared.get(), 'up');

  let release: (value: string) => void = () => {};
  const hanging = sharedRead(() => new Promise<string>((resolve) => (release = resolve)), { freshMs: 10_000, timeoutMs: 30 });
  const started = performance.now();
  await assert.rejects(hanging.get(), /did not answer within 30 ms/);
  assert.ok(performance.now() - started < 1000);
  release('late');
  await sleep(0);
  assert.equal(await hanging.get(), 'late', 'the late answer serves the next caller');
});
