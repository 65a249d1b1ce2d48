/**
 * The queue under real concurrency: several runtime database instances (each its own pool, as
 * separate processes would have) claiming, enqueuing schedule slots and reaping at the same time.
 * Every item must be claimed exactly once, every slot enqueued exactly once, every expired item
 * reaped exactly once.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { toDatabaseTime } from '../../../../runtime/database/timestamps.js';
import { writeTransaction } from '../../../../runtime/database/write-transaction.js';
import type { RuntimeDatabase } from '../../../../runtime/database/open-database.js';
import { claim } from '../../../../runtime/queue/claim.js';
import { enqueue } from '../../../../runtime/queue/enqueue.js';
import { countByStatus } from '../../../../runtime/queue/queue-summary.js';
import { reap } from '../../../../runtime/queue/reap.js';
import { enqueueSlot, lastSlots, slotKey } from '../../../../runtime/queue/schedule-slot.js';
import { at, describeEachRuntimeDatabase, openRuntimeDatabase } from '../../../support/runtime-databases.js';

const workers = 4;

await describeEachRuntimeDatabase('queue concurrency', (runtime, database) => {
  let instances: RuntimeDatabase[] = [];
  before(async () => {
    instances = await Promise.all(Array.from({ length: workers }, () => openRuntimeDatabase(database(), { poolSize: 3 })));
  });
  after(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
  });
  beforeEach(async () => {
    await runtime().knex('queue_items').delete();
    await runtime().knex('schedules').delete();
  });

  test(`${workers} workers × 2 claim loops over 500 items: each item claimed exactly once`, async () => {
    const ids: string[] = [];
    for (let start = 0; start < 500; start += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          enqueue(instances[index % workers]!, { processId: `sync-${index % 7}`, startType: 'repeat' }, { now: at(start + index) }),
        ),
      );
      ids.push(...batch.map((result) => result.item.id));
    }

    const claimedBy = new Map<string, string>();
    let duplicates = 0;
    const loop = async (instance: RuntimeDatabase, workerId: string): Promise<void> => {
      for (;;) {
        const items = await claim(instance, { workerId, limit: 7, leaseMs: 60_000, now: at(1000) });
        if (items.length === 0) return;
        for (const item of items) {
          if (claimedBy.has(item.id)) duplicates += 1;
          claimedBy.set(item.id, workerId);
        }
      }
    };
    await Promise.all(instances.flatMap((instance, index) => [loop(instance, `w${index}a`), loop(instance, `w${index}b`)]));

    assert.equal(duplicates, 0, 'no item was claimed twice');
    assert.equal(new Set(claimedBy.keys()).size, 500);
    assert.deepEqual([...claimedBy.keys()].sort(), [...ids].sort());
    assert.deepEqual(await countByStatus(runtime()), { Pending: 0, InProgress: 500, Complete: 0, Failed: 0 });
    const holders = (await runtime().knex('queue_items').select('id', 'locked_by', 'attempts')) as Array<{
      id: string;
      locked_by: string;
      attempts: number;
    }>;
    for (const row of holders) {
      assert.equal(row.locked_by, claimedBy.get(String(row.id)), 'the database names the worker that got the item');
      assert.equal(Number(row.attempts), 1);
    }
  });

  test('schedulers in every process enqueueing the same slots: one item per slot', async () => {
    const slots = Array.from({ length: 20 }, (_, index) => at(index * 60));
    const results = await Promise.all(
      instances.flatMap((instance) =>
        slots.map((slotAt) =>
          enqueueSlot(instance, { processId: 'nightly', startType: 'planned', slotAt, maxAttempts: 2 }, { now: at(2000) }),
        ),
      ),
    );
    assert.equal(results.filter((result) => result.created).length, slots.length, 'exactly one process created each slot');
    for (const slotAt of slots) {
      const holders = new Set(
        results.filter((result) => result.item.slotKey === slotKey('nightly', slotAt)).map((result) => result.item.id),
      );
      assert.equal(holders.size, 1, 'every process was answered with the same item');
    }
    const rows = (await runtime().knex('queue_items').select('slot_key', 'start_type', 'max_attempts', 'run_after')) as Array<{
      slot_key: string;
    }>;
    assert.equal(rows.length, slots.length);
    assert.deepEqual(rows.map((row) => row.slot_key).sort(), slots.map((slotAt) => slotKey('nightly', slotAt)).sort());
    assert.deepEqual(await lastSlots(runtime()), new Map([['nightly', slots.at(-1)!]]));
  });

  test('two plain enqueues with one slot key at the same moment: exactly one item', async () => {
    const [first, second] = await Promise.all(
      instances
        .slice(0, 2)
        .map((instance) => enqueue(instance, { processId: 'hourly', startType: 'repeat', slotKey: 'hourly@2030-01-01T01:00:00.000Z' })),
    );
    assert.equal([first!.created, second!.created].filter(Boolean).length, 1);
    assert.equal(first!.item.id, second!.item.id);
    assert.equal((await countByStatus(runtime())).Pending, 1);
  });

  test('a slot whose item was pruned is remembered in schedules', async () => {
    const slotAt = at(0);
    const first = await enqueueSlot(runtime(), { processId: 'daily', startType: 'repeat', slotAt }, { now: at(1) });
    assert.equal(first.created, true);
    await runtime().knex('queue_items').delete();
    assert.deepEqual((await lastSlots(runtime())).get('daily'), slotAt, 'the scheduler compares with this before enqueuing');
    const older = await enqueueSlot(runtime(), { processId: 'daily', startType: 'repeat', slotAt: at(-60) }, { now: at(2) });
    assert.equal(older.created, true);
    assert.deepEqual((await lastSlots(runtime())).get('daily'), slotAt, 'never moves back');
  });

  test('reapers in every process: each expired item reaped exactly once', async () => {
    for (let index = 0; index < 60; index += 1)
      await enqueue(runtime(), { processId: 'p', startType: 'manual', maxAttempts: index % 2 === 0 ? 2 : 1 }, { now: at(index) });
    await claim(runtime(), { workerId: 'crashed', limit: 60, leaseMs: 1000, now: at(100) });
    const results = await Promise.all(instances.map((instance) => reap(instance, { now: at(200), limit: 20 })));
    const again = await reap(runtime(), { now: at(200), limit: 100 });
    const pending = [...results.flatMap((result) => result.pending), ...again.pending];
    const failed = [...results.flatMap((result) => result.failed), ...again.failed];
    assert.equal(new Set(pending).size, pending.length, 'no item reaped twice');
    assert.equal(new Set(failed).size, failed.length, 'no item reaped twice');
    assert.equal(pending.length, 30);
    assert.equal(failed.length, 30);
    assert.deepEqual(await countByStatus(runtime()), { Pending: 30, InProgress: 0, Complete: 0, Failed: 30 });
  });

  test('read-then-write transactions of two processes both commit (on SQLite they begin IMMEDIATE)', async () => {
    // With a deferred BEGIN, SQLite would refuse the second writer at once (SQLITE_BUSY) instead of letting it wait.
    const work = (instance: RuntimeDatabase, processId: string) =>
      writeTransaction(instance, async (trx) => {
        await trx('schedules').count({ n: '*' });
        await sleep(50);
        const time = toDatabaseTime(instance.dialect, at(0));
        await trx('schedules').insert({ process_id: processId, last_slot_at: time, updated_at: time });
      });
    await Promise.all([work(instances[0]!, 'first'), work(instances[1]!, 'second')]);
    assert.deepEqual(
      ((await runtime().knex('schedules').select('process_id').orderBy('process_id')) as Array<{ process_id: string }>).map(
        (row) => row.process_id,
      ),
      ['first', 'second'],
    );
  });
});
