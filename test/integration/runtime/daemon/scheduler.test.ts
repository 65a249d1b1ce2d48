/**
 * Schedules: slot times (`every` since the epoch, `cron` in a time zone), one item per slot
 * however many schedulers run, one catch-up run after downtime, and no re-run after a restart.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeEach, test } from 'node:test';
import { slotClock } from '../../../../runtime/daemon/schedule-slots.js';
import { startScheduler } from '../../../../runtime/daemon/scheduler.js';
import type { RuntimeDatabase } from '../../../../runtime/database/open-database.js';
import { enqueueSlot } from '../../../../runtime/queue/schedule-slot.js';
import { describeEachRuntimeDatabase, openRuntimeDatabase } from '../../../support/runtime-databases.js';
import { captureLog, fakeSnapshot } from './fake-runner.js';

test('every: slots are multiples of the interval since the epoch', () => {
  const clock = slotClock({ every: '15m' });
  assert.equal(clock.startType, 'repeat');
  assert.equal(clock.latestAtOrBefore(new Date('2030-01-01T10:44:59Z'))?.toISOString(), '2030-01-01T10:30:00.000Z');
  assert.equal(clock.latestAtOrBefore(new Date('2030-01-01T10:45:00Z'))?.toISOString(), '2030-01-01T10:45:00.000Z');
  assert.equal(clock.nextAfter(new Date('2030-01-01T10:45:00Z'))?.toISOString(), '2030-01-01T11:00:00.000Z');
});

test('cron: slots in the time zone, UTC by default', () => {
  const berlin = slotClock({ cron: '0 2 * * *', timezone: 'Europe/Berlin' });
  assert.equal(berlin.startType, 'planned');
  assert.equal(berlin.nextAfter(new Date('2030-07-01T00:30:00Z'))?.toISOString(), '2030-07-02T00:00:00.000Z');
  assert.equal(berlin.latestAtOrBefore(new Date('2030-07-02T00:00:00Z'))?.toISOString(), '2030-07-02T00:00:00.000Z');
  assert.equal(slotClock({ cron: '0 2 * * *' }).nextAfter(new Date('2030-07-01T00:30:00Z'))?.toISOString(), '2030-07-01T02:00:00.000Z');
});

await describeEachRuntimeDatabase('the scheduler', (runtime, database) => {
  let db: RuntimeDatabase;
  beforeEach(async () => {
    db = runtime();
    await db.knex('queue_items').delete();
    await db.knex('schedules').delete();
  });
  const items = async () =>
    (await db.knex('queue_items').select('slot_key', 'start_type', 'max_attempts', 'process_id').orderBy('slot_key')) as Array<{
      slot_key: string;
      start_type: string;
      max_attempts: number;
      process_id: string;
    }>;

  test('two schedulers on one database enqueue one item per slot', async () => {
    const other = await openRuntimeDatabase(database());
    const snapshot = fakeSnapshot(
      { tick: { schedule: { every: '1s' }, retries: { max: 2, backoff: '1s', maxBackoff: '1s' } } },
      { nightly: { schedule: { cron: '* * * * * *' } } },
    );
    const schedulers = await Promise.all(
      [db, other].map((on) => startScheduler({ db: on, log: captureLog().log, snapshot: () => snapshot })),
    );
    await sleep(2600);
    await Promise.all(schedulers.map((scheduler) => scheduler.stop()));
    await other.close();
    const stored = await items();
    const ticks = stored.filter((item) => item.process_id === 'tick');
    assert.ok(ticks.length >= 2 && ticks.length <= 3, `${ticks.length} tick items`);
    assert.equal(new Set(stored.map((item) => item.slot_key)).size, stored.length);
    assert.ok(ticks.every((item) => item.start_type === 'repeat' && Number(item.max_attempts) === 3));
    const nightly = stored.filter((item) => item.process_id === 'nightly');
    assert.ok(nightly.length >= 2 && nightly.every((item) => item.start_type === 'planned' && Number(item.max_attempts) === 1));
  });

  test('a restart does not run the latest slot again; after downtime one slot is caught up', async () => {
    const hourly = fakeSnapshot({ hourly: { schedule: { every: '1h' } } });
    const latest = slotClock({ every: '1h' }).latestAtOrBefore(new Date())!;
    await enqueueSlot(db, { processId: 'hourly', startType: 'repeat', slotAt: latest });
    let scheduler = await startScheduler({ db, log: captureLog().log, snapshot: () => hourly });
    await sleep(100);
    await scheduler.stop();
    assert.equal((await items()).length, 1, 'the slot that ran is not run again');

    // Five hours without a scheduler: the latest slot runs once, the four before it never.
    await db.knex('queue_items').delete();
    await db.knex('schedules').delete();
    await enqueueSlot(db, { processId: 'hourly', startType: 'repeat', slotAt: new Date(latest.getTime() - 5 * 3_600_000) });
    scheduler = await startScheduler({ db, log: captureLog().log, snapshot: () => hourly });
    await sleep(100);
    await scheduler.stop();
    assert.deepEqual((await items()).map((item) => item.slot_key).slice(1), [`hourly@${latest.toISOString()}`]);
  });

  test('a schedule that never ran waits for its next slot', async () => {
    const scheduler = await startScheduler({
      db,
      log: captureLog().log,
      snapshot: () => fakeSnapshot({ hourly: { schedule: { every: '1h' } } }),
    });
    await sleep(100);
    await scheduler.stop();
    assert.equal((await items()).length, 0);
  });

  test('a swapped snapshot adds and removes schedules', async () => {
    let snapshot = fakeSnapshot({});
    let swap: (() => void) | undefined;
    const scheduler = await startScheduler({
      db,
      log: captureLog().log,
      snapshot: () => snapshot,
      onSwap: (listener) => {
        swap = listener;
        return () => {
          swap = undefined;
        };
      },
    });
    try {
      await sleep(1100);
      assert.equal((await items()).length, 0);
      snapshot = fakeSnapshot({ tick: { schedule: { every: '1s' } } });
      swap?.();
      await sleep(1100);
      const afterAdd = (await items()).length;
      assert.ok(afterAdd >= 1);
      snapshot = fakeSnapshot({});
      swap?.();
      // A slot already being enqueued when the schedule went may still land; after that, none.
      await sleep(300);
      const afterRemove = (await items()).length;
      assert.ok(afterRemove <= afterAdd + 1, `${afterRemove} items after the removal, ${afterAdd} before`);
      await sleep(1100);
      assert.equal((await items()).length, afterRemove);
    } finally {
      // A failed check must not leave the scheduler's timers keeping the test process alive.
      await scheduler.stop();
    }
  });
});
