/** Turns of free queries: at most `size` at once, a freed turn goes to the longest waiter, and a waiter that gets none fails with busy. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QuerySlots } from '../../../connectors/query-slots.js';

class Busy extends Error {
  constructor(
    readonly running: number,
    readonly retryAfter: number,
  ) {
    super(`busy: ${running}, retry after ${retryAfter}`);
  }
}

const slots = (size: number, waitMs: number, holdMs = 60_000) =>
  new QuerySlots({ size, waitMs, holdMs, busy: (running, retryAfter) => new Busy(running, retryAfter) });

test('a freed turn goes to the first waiter, before any newcomer', async () => {
  const turns = slots(1, 60_000);
  const first = await turns.acquire();
  const order: string[] = [];
  const second = turns.acquire().then((end) => {
    order.push('second');
    return end;
  });
  const third = turns.acquire().then((end) => {
    order.push('third');
    return end;
  });
  first();
  // The newcomer arrives while the second waiter is being handed the turn: it must queue behind.
  const newcomer = turns.acquire().then((end) => {
    order.push('newcomer');
    return end;
  });
  (await second)();
  (await third)();
  (await newcomer)();
  assert.deepEqual(order, ['second', 'third', 'newcomer']);
});

test('a waiter without a turn fails with busy, naming how many run and when one is sure to end', async () => {
  const turns = slots(2, 20, 10_000);
  const ends = [await turns.acquire(), await turns.acquire()];
  const error = await turns.acquire().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof Busy);
  assert.equal(error.running, 2);
  assert.ok(error.retryAfter >= 1 && error.retryAfter <= 10, `retry after ${error.retryAfter} s: within the hold time`);
  for (const end of ends) end();
  const again = await turns.acquire();
  again();
  again();
  // Ending a turn twice frees it once: two more turns fit, a third would wait.
  const both = [await turns.acquire(), await turns.acquire()];
  await assert.rejects(turns.acquire(), Busy);
  for (const end of both) end();
});

test('a waiter whose caller went away leaves the queue', async () => {
  const turns = slots(1, 60_000);
  const end = await turns.acquire();
  const controller = new AbortController();
  const waiting = turns.acquire(controller.signal);
  controller.abort(new Error('the caller went away'));
  await assert.rejects(waiting, /the caller went away/);
  end();
  // The turn went to no one: it is free at once.
  (await turns.acquire())();
});
