/**
 * Concurrency limits in the queue, on every engine: a claim never takes more items of one key than
 * its limit leaves room for, takes the rest in line order, and leaves the blocked ones for later;
 * several runtime instances (separate pools, as processes would have) claiming at the same time
 * never exceed a limit together; skip and fail policies record a start at the limit as not run;
 * a started item (direct runs) waits in line when its key is full.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RuntimeDatabase } from '../../../../runtime/database/open-database.js';
import { claim } from '../../../../runtime/queue/claim.js';
import { completeItem } from '../../../../runtime/queue/complete.js';
import { enqueue, type NewQueueItem } from '../../../../runtime/queue/enqueue.js';
import type { QueueConcurrency, QueueRow } from '../../../../runtime/queue/queue-item.js';
import { nextRunAfter } from '../../../../runtime/queue/queue-summary.js';
import { startItem } from '../../../../runtime/queue/start-item.js';
import { at, describeEachRuntimeDatabase, openRuntimeDatabase } from '../../../support/runtime-databases.js';

const lease = 60_000;

function limited(key: string, limit: number, onLimit: QueueConcurrency['onLimit'] = 'wait'): QueueConcurrency {
  return { key: `process:${key}`, limit, onLimit };
}

await describeEachRuntimeDatabase('concurrency limits', (runtime, database) => {
  let db: RuntimeDatabase;
  beforeEach(async () => {
    db = runtime();
    await db.knex('queue_items').delete();
  });

  async function add(processId: string, seconds: number, extra: Partial<NewQueueItem> = {}): Promise<QueueRow> {
    return (await enqueue(db, { processId, startType: 'AdHoc', ...extra }, { now: at(seconds) })).item;
  }

  test('a claim takes each key’s first items up to its limit, items without a key freely, all in line order', async () => {
    const a = [];
    for (let i = 0; i < 5; i += 1) a.push(await add('a', i, { concurrency: limited('a', 2) }));
    const b = [await add('b', 1.5, { concurrency: limited('b', 1) }), await add('b', 2.5, { concurrency: limited('b', 1) })];
    const free = [await add('free', 3.5), await add('free', 7.5)];

    const first = await claim(db, { workerId: 'w1', limit: 10, leaseMs: lease, now: at(100) });
    assert.deepEqual(
      first.map((item) => item.id),
      [a[0]!.id, a[1]!.id, b[0]!.id, free[0]!.id, free[1]!.id],
      'a’s two oldest, b’s oldest and both free items, oldest first',
    );
    assert.deepEqual(
      await claim(db, { workerId: 'w2', limit: 10, leaseMs: lease, now: at(100) }),
      [],
      'nothing more while a and b are at their limits',
    );

    assert.equal(await completeItem(db, { id: a[0]!.id, workerId: 'w1', status: 'Complete', now: at(101) }), true);
    assert.equal(await completeItem(db, { id: b[0]!.id, workerId: 'w1', status: 'Failed', now: at(101) }), true);
    const second = await claim(db, { workerId: 'w2', limit: 10, leaseMs: lease, now: at(102) });
    assert.deepEqual(
      second.map((item) => item.id),
      [a[2]!.id, b[1]!.id],
      'each finished run frees exactly one place',
    );
  });

  test('a batch of one key never exceeds its limit, however large the batch', async () => {
    for (let i = 0; i < 6; i += 1) await add('a', i, { concurrency: limited('a', 3) });
    assert.equal((await claim(db, { workerId: 'w', limit: 6, leaseMs: lease, now: at(100) })).length, 3);
  });

  test('items behind many of a key with little room are claimed in the same claim', async () => {
    // On PostgreSQL the daemon's claim first ranks a head twice its size (migration 015): here all
    // of a's, of which only one may run, so the claim ranks the longer head to reach b's.
    const a = [];
    for (let i = 0; i < 25; i += 1) a.push(await add('a', i / 100, { concurrency: limited('a', 1) }));
    const b = [];
    for (let i = 0; i < 5; i += 1) b.push(await add('b', 1 + i / 100, { concurrency: limited('b', 10) }));
    const claimed = await claim(db, { workerId: 'w', limit: 5, leaseMs: lease, now: at(100) });
    assert.deepEqual(
      claimed.map((item) => item.id),
      [a[0]!.id, ...b.slice(0, 4).map((item) => item.id)],
      'a’s oldest, then b’s four oldest',
    );
  });

  test('items of a group share one limit, whichever process they belong to', async () => {
    const group: QueueConcurrency = { key: 'group:erp-accounts', limit: 1, onLimit: 'wait' };
    const one = await add('sync-one', 1, { concurrency: group });
    await add('sync-two', 2, { concurrency: group });
    const claimed = await claim(db, { workerId: 'w', limit: 5, leaseMs: lease, now: at(100) });
    assert.deepEqual(
      claimed.map((item) => item.id),
      [one.id],
    );
  });

  test('nextRunAfter leaves out items that wait for a place, not for a time', async () => {
    await add('a', 1, { concurrency: limited('a', 1) });
    await add('a', 2, { concurrency: limited('a', 1) });
    await claim(db, { workerId: 'w', limit: 5, leaseMs: lease, now: at(100) });
    assert.equal(await nextRunAfter(db), null, 'the waiting item of a is not due for any claim');
    await add('free', 50);
    assert.deepEqual(await nextRunAfter(db), at(50));
  });

  test('skip and fail: a start that finds the limit taken is recorded at once as not run, with a note', async () => {
    const running = await add('nightly', 1, { concurrency: limited('nightly', 1, 'skip') });
    const skipped = await add('nightly', 2, { concurrency: limited('nightly', 1, 'skip') });
    assert.equal(running.status, 'Pending');
    assert.equal(skipped.status, 'Complete');
    assert.deepEqual(skipped.finishedAt, at(2));
    assert.equal(skipped.attempts, 0);
    assert.match(
      skipped.errors[0]!.message,
      /^not run: 'nightly' already had 1 run in progress or waiting, and its concurrency limit is 1 \(onLimit: skip\)$/,
    );

    await add('strict', 1, { concurrency: limited('strict', 1, 'fail') });
    const failed = await add('strict', 2, { concurrency: limited('strict', 1, 'fail') });
    assert.equal(failed.status, 'Failed');
    assert.match(failed.errors[0]!.message, /onLimit: fail/);

    await claim(db, { workerId: 'w', limit: 5, leaseMs: lease, now: at(100) });
    assert.equal(await completeItem(db, { id: running.id, workerId: 'w', status: 'Complete', now: at(101) }), true);
    assert.equal(
      (await add('nightly', 102, { concurrency: limited('nightly', 1, 'skip') })).status,
      'Pending',
      'once the run ended, a start waits to run again',
    );
  });

  test('a started item is claimed at once when its key has room, and waits in line Pending when it has none', async () => {
    const options = { workerId: 'api', leaseMs: lease, now: at(10) };
    const first = await startItem(db, { processId: 'direct', startType: 'Single', concurrency: limited('direct', 1) }, options);
    assert.equal(first.status, 'InProgress');
    assert.equal(first.lockedBy, 'api');
    assert.equal(first.attempts, 1);
    const second = await startItem(db, { processId: 'direct', startType: 'Single', concurrency: limited('direct', 1) }, options);
    assert.equal(second.status, 'Pending');
    assert.equal(second.attempts, 0);
    assert.deepEqual(await claim(db, { workerId: 'api', limit: 1, leaseMs: lease, ids: [second.id], now: at(11) }), [], 'no room yet');
    await completeItem(db, { id: first.id, workerId: 'api', status: 'Complete', now: at(12) });
    const [turn] = await claim(db, { workerId: 'api', limit: 1, leaseMs: lease, ids: [second.id], now: at(13) });
    assert.equal(turn?.id, second.id, 'the waiting item is claimed by its starter once the place is free');
    const skipped = await startItem(db, { processId: 'direct', startType: 'Single', concurrency: limited('direct', 1, 'skip') }, options);
    assert.equal(skipped.status, 'Complete');
  });

  test('a claim narrowed to given ids takes only those, within the limit', async () => {
    const x = await add('a', 1, { concurrency: limited('a', 2) });
    const y = await add('a', 2, { concurrency: limited('a', 2) });
    const claimed = await claim(db, { workerId: 'w', limit: 5, leaseMs: lease, ids: [y.id], now: at(100) });
    assert.deepEqual(
      claimed.map((item) => item.id),
      [y.id],
    );
    assert.equal((await claim(db, { workerId: 'w', limit: 5, leaseMs: lease, now: at(100) }))[0]?.id, x.id);
  });

  const instancesCount = 4;
  let instances: RuntimeDatabase[] = [];
  before(async () => {
    instances = await Promise.all(Array.from({ length: instancesCount }, () => openRuntimeDatabase(database(), { poolSize: 3 })));
  });
  after(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
  });

  test(`skip and fail under ${instancesCount * 3} starts at once from ${instancesCount} instances: exactly one waits, the others are recorded as not run`, async () => {
    for (const onLimit of ['skip', 'fail'] as const) {
      const starts = instancesCount * 3;
      const results = await Promise.all(
        Array.from({ length: starts }, (_, index) =>
          enqueue(
            instances[index % instancesCount]!,
            { processId: `burst-${onLimit}`, startType: 'AdHoc', concurrency: limited(`burst-${onLimit}`, 1, onLimit) },
            { now: at(5) },
          ),
        ),
      );
      const statuses = results.map((result) => result.item.status).sort();
      assert.deepEqual(
        statuses,
        ['Pending', ...Array.from({ length: starts - 1 }, () => (onLimit === 'skip' ? 'Complete' : 'Failed'))].sort(),
        `${onLimit}: ${statuses.join(', ')}`,
      );
    }
  });

  test(`${instancesCount} instances × 2 workers claiming and finishing 60 items of a key limited to 2: never more than 2 at once`, async () => {
    for (let i = 0; i < 60; i += 1) await add('busy', i, { concurrency: limited('busy', 2) });
    let running = 0;
    let most = 0;
    let mostInDatabase = 0;
    let finished = 0;
    let failed = false;
    const worker = async (instance: RuntimeDatabase, workerId: string): Promise<void> => {
      try {
        await work(instance, workerId);
      } catch (error) {
        // Stop the other workers too, so the test ends with this error instead of waiting for ever.
        failed = true;
        throw error;
      }
    };
    const work = async (instance: RuntimeDatabase, workerId: string): Promise<void> => {
      while (finished < 60 && !failed) {
        const [item] = await claim(instance, { workerId, limit: 1, leaseMs: lease, now: at(1000) });
        if (item === undefined) {
          await sleep(2);
          continue;
        }
        running += 1;
        most = Math.max(most, running);
        const inProgress = Number(
          (
            (await instance
              .knex('queue_items')
              .count({ n: '*' })
              .where({ concurrency_key: 'process:busy', status: 'InProgress' })) as Array<{ n: number | string }>
          )[0]!.n,
        );
        mostInDatabase = Math.max(mostInDatabase, inProgress);
        // Hold the item until a second one runs beside it (or a while): on a loaded machine runs of
        // a few ms may never overlap by chance, and the test must still see the limit used.
        for (let waited = 0; waited < 100 && most < 2 && finished + running < 60; waited += 1) await sleep(2);
        await sleep(3);
        running -= 1;
        assert.equal(await completeItem(instance, { id: item.id, workerId, status: 'Complete' }), true);
        finished += 1;
      }
    };
    await Promise.all(instances.flatMap((instance, index) => [worker(instance, `w${index}a`), worker(instance, `w${index}b`)]));
    assert.equal(finished, 60);
    assert.ok(most <= 2, `at most 2 items ran at once (saw ${most})`);
    assert.ok(mostInDatabase <= 2, `the database never held more than 2 InProgress (saw ${mostInDatabase})`);
    assert.equal(most, 2, 'the limit of 2 was used, not just 1');
  });
});
