/**
 * The client's rate limit on a clock of the test's own: `requests` at once, then one every
 * `per / requests`; a slot given up by an abort goes back when nobody reserved after it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RequestRate } from '../../../../connectors/web/request-rate.js';

test('the first `requests` go at once, the others one spacing apart', () => {
  let now = 1000;
  const rate = new RequestRate({ requests: 3, perMs: 300 }, () => now);
  assert.deepEqual(
    Array.from({ length: 6 }, () => rate.reserve()),
    [0, 0, 0, 100, 200, 300],
  );
  now += 1000;
  assert.deepEqual([rate.reserve(), rate.reserve(), rate.reserve(), rate.reserve()], [0, 0, 0, 100], 'a quiet spell refills the burst');
});

test('a steady caller is spaced evenly', () => {
  let now = 0;
  const rate = new RequestRate({ requests: 1, perMs: 250 }, () => now);
  assert.equal(rate.reserve(), 0);
  now += 100;
  assert.equal(rate.reserve(), 150);
});

test('an aborted wait rejects with the reason, and hands its slot back when it was the last', async () => {
  let now = 0;
  const rate = new RequestRate({ requests: 1, perMs: 60_000 }, () => now);
  await rate.take();
  const controller = new AbortController();
  const waiting = rate.take(controller.signal);
  const reason = new Error('caller went away');
  controller.abort(reason);
  await assert.rejects(waiting, (error) => error === reason);
  now += 60_000;
  assert.equal(rate.reserve(), 0, 'the slot the aborted caller held is free again');
  await assert.rejects(rate.take(AbortSignal.abort(reason)), (error) => error === reason);
});
