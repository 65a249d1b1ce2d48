/**
 * The daemon on every engine, with fake runs: the concurrency limit, waking on enqueue without
 * waiting for the poll, stop() handing unfinished items back, and items that wait for a daemon.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, test } from 'node:test';
import { startDaemon, type Daemon } from '../../../../runtime/daemon/daemon.js';
import type { RuntimeDatabase } from '../../../../runtime/database/open-database.js';
import type { RunProcess } from '../../../../runtime/execution/process-run.js';
import { enqueue } from '../../../../runtime/queue/enqueue.js';
import { getItem } from '../../../../runtime/queue/get-item.js';
import { countByStatus } from '../../../../runtime/queue/queue-summary.js';
import { reap } from '../../../../runtime/queue/reap.js';
import { toDatabaseTime } from '../../../../runtime/database/timestamps.js';
import { describeEachRuntimeDatabase, openRuntimeDatabase } from '../../../support/runtime-databases.js';
import { completeOutcome, eventually, fakeRunner, runUntilAborted } from './fake-runner.js';

await describeEachRuntimeDatabase('the queue daemon', (runtime, database) => {
  let db: RuntimeDatabase;
  let daemons: Daemon[] = [];
  beforeEach(async () => {
    db = runtime();
    await db.knex('queue_items').delete();
  });
  afterEach(async () => {
    await Promise.all(daemons.map((daemon) => daemon.stop()));
    daemons = [];
  });

  /** `count` items; by default with the attempts of a sync's default retries (3 + 1), as the API enqueues them. */
  const add = async (count: number, maxAttempts = 4) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) ids.push((await enqueue(db, { processId: 'crm-to-erp', startType: 'manual', maxAttempts })).item.id);
    return ids;
  };
  const daemon = async (
    runProcess: RunProcess,
    options: {
      concurrency?: number;
      prefetch?: number;
      pollIntervalMs?: number;
      drainMs?: number;
      workerId?: string;
      on?: RuntimeDatabase;
    } = {},
  ) => {
    const started = await startDaemon({
      runner: fakeRunner(options.on ?? db, runProcess, { workerId: options.workerId ?? 'daemon-1' }),
      concurrency: options.concurrency ?? 4,
      ...(options.prefetch === undefined ? {} : { prefetch: options.prefetch }),
      pollIntervalMs: options.pollIntervalMs ?? 60_000,
      drainMs: options.drainMs ?? 10_000,
    });
    daemons.push(started);
    return started;
  };
  const allComplete = async () => (await countByStatus(db)).Complete;

  test('runs at most `concurrency` items at once, and all of them', async () => {
    await add(7);
    let now = 0;
    let most = 0;
    await daemon(
      async () => {
        now += 1;
        most = Math.max(most, now);
        await sleep(60);
        now -= 1;
        return completeOutcome();
      },
      { concurrency: 2, pollIntervalMs: 5000 },
    );
    await eventually(async () => (await allComplete()) === 7, 10_000, 'all items complete');
    assert.equal(most, 2);
  });

  test('wakes on an enqueue at once, not after the poll interval', async () => {
    await daemon(async () => completeOutcome(), { pollIntervalMs: 60_000 });
    await sleep(100);
    const started = Date.now();
    const [id] = await add(1);
    await eventually(async () => (await getItem(db, id!))?.status === 'Complete', 3000, 'the item completes');
    assert.ok(Date.now() - started < 3000);
  });

  test('stop() lets running items finish within the drain time', async () => {
    const [id] = await add(1);
    let started = false;
    const running = await daemon(async () => {
      started = true;
      await sleep(200);
      return completeOutcome();
    });
    // Its run begun, not only its item claimed: a stop between the claim's commit and the run's
    // start hands the item back, as it should, and there is nothing to let finish.
    await eventually(async () => started, 3000, 'the item starts');
    await running.stop();
    assert.equal((await getItem(db, id!))?.status, 'Complete');
  });

  test('stop() releases unfinished items back to Pending with the attempt restored', async () => {
    const ids = await add(2);
    const running = await daemon(runUntilAborted, { drainMs: 100 });
    await eventually(async () => (await countByStatus(db)).InProgress === 2, 3000, 'both items start');
    await running.stop();
    for (const id of ids) {
      const item = await getItem(db, id);
      assert.equal(item?.status, 'Pending');
      assert.equal(item?.attempts, 0);
      assert.equal(item?.lockedBy, null);
    }
  });

  test('stop() releases an interrupted item only once its run is over, however long its last write takes', async () => {
    const [id] = await add(1);
    let started = false;
    let runOver = false;
    let statusWhileRunning: string | undefined;
    const running = await daemon(
      async (_environment, start) => {
        started = true;
        await runUntilAborted(_environment, start);
        // A write the database answers only now, well past the grace after the abort (2 s).
        await sleep(2600);
        statusWhileRunning = (await getItem(db, id!))?.status;
        runOver = true;
        return { status: 'Failed', statistics: completeOutcome().statistics, errors: [{ message: 'aborted' }], retryable: true };
      },
      { drainMs: 100 },
    );
    await eventually(async () => started, 3000, 'the item starts');
    await running.stop();
    assert.ok(runOver, 'stop() waited for the run');
    assert.equal(statusWhileRunning, 'InProgress', 'no other daemon could take the item while its run went on');
    const item = await getItem(db, id!);
    assert.equal(item?.status, 'Pending');
    assert.equal(item?.attempts, 0);
  });

  test('a busy daemon runs items from its buffer one at a time, and hands back the unstarted ones when it stops', async () => {
    const ids = await add(30);
    let runs = 0;
    let now = 0;
    let most = 0;
    const running = await daemon(
      async () => {
        runs += 1;
        now += 1;
        most = Math.max(most, now);
        await sleep(30);
        now -= 1;
        return completeOutcome();
      },
      { concurrency: 1, prefetch: 4 },
    );
    await eventually(async () => (await allComplete()) >= 5, 10_000, 'five items complete');
    await running.stop();
    const items = await Promise.all(ids.map((id) => getItem(db, id)));
    const complete = items.filter((item) => item?.status === 'Complete');
    assert.equal(runs, complete.length, 'each run completed its own item, none ran twice');
    assert.equal(most, 1, 'buffered items wait for a free slot');
    for (const item of items.filter((candidate) => candidate?.status !== 'Complete')) {
      assert.equal(item?.status, 'Pending', 'nothing is left held');
      assert.equal(item?.attempts, 0, 'a buffered attempt is not counted');
      assert.equal(item?.startedAt, null);
    }
  });

  test('a last attempt is never buffered: when the daemon dies, only the item it was running fails, the rest run later', async () => {
    // maxAttempts 1: a flow's item, or a sync without retries.
    await add(6, 1);
    const crashing = await daemon(runUntilAborted, { concurrency: 1, prefetch: 4, drainMs: 100 });
    await eventually(async () => (await countByStatus(db)).InProgress >= 1, 3000, 'the first item runs');
    // Long enough for a busy daemon to claim ahead into its buffer.
    await sleep(300);
    // The daemon dies (kill -9): its leases run out, and a reaper takes its items back.
    await db
      .knex('queue_items')
      .where({ status: 'InProgress' })
      .update({ lease_until: toDatabaseTime(db.dialect, new Date(Date.now() - 1000)) });
    await reap(db);
    const counts = await countByStatus(db);
    assert.equal(counts.Failed, 1, 'only the attempt that ran is lost');
    assert.equal(counts.Pending, 5, 'every item it had not started waits for its run');
    await crashing.stop();
  });

  test('an item with retries left may wait in the buffer', async () => {
    await add(6);
    const running = await daemon(runUntilAborted, { concurrency: 1, prefetch: 4, drainMs: 100 });
    await eventually(async () => (await countByStatus(db)).InProgress === 2, 3000, 'one item runs, one waits in the buffer');
    await running.stop();
    assert.equal((await countByStatus(db)).Pending, 6);
  });

  test('a slot frees when its run is over: the next item runs while the end is still being recorded', async (t) => {
    if (db.dialect === 'sqlite') return t.skip('SQLite: holding the first end back would hold every write back');
    const [first, second] = await add(2);
    // Another connection locks the first item's row once its run began, so recording its end waits.
    const other = await openRuntimeDatabase(database());
    const locker = await other.knex.transaction();
    let firstStillRunning: string | undefined;
    try {
      let runs = 0;
      await daemon(
        async () => {
          runs += 1;
          if (runs === 1) await locker('queue_items').where({ id: first }).forUpdate().select('id');
          else firstStillRunning = (await locker('queue_items').where({ id: first }).first())?.status;
          return completeOutcome();
        },
        { concurrency: 1 },
      );
      await eventually(() => firstStillRunning !== undefined, 5000, 'the second item runs while the first one’s end waits');
      assert.equal(firstStillRunning, 'InProgress');
    } finally {
      await locker.commit();
      await other.close();
    }
    await eventually(async () => (await allComplete()) === 2, 5000, 'both ends are recorded');
    assert.equal((await getItem(db, second!))?.status, 'Complete');
  });

  test('without a daemon items stay Pending; a daemon started later completes them', async () => {
    await add(3);
    await sleep(200);
    assert.equal((await countByStatus(db)).Pending, 3);
    await daemon(async () => completeOutcome());
    await eventually(async () => (await allComplete()) === 3, 5000, 'all items complete');
  });

  test('two daemons on separate connections share the items, each run once', async () => {
    const other = await openRuntimeDatabase(database());
    try {
      const runs = new Map<string, number>();
      const count: RunProcess = async (_environment, start) => {
        await sleep(20);
        runs.set(start.processId, (runs.get(start.processId) ?? 0) + 1);
        return completeOutcome();
      };
      await daemon(count, { concurrency: 3, pollIntervalMs: 100, workerId: 'daemon-a' });
      await daemon(count, { concurrency: 3, pollIntervalMs: 100, workerId: 'daemon-b', on: other });
      for (let i = 0; i < 12; i += 1) await enqueue(db, { processId: 'crm-to-erp', startType: 'manual' });
      await eventually(async () => (await allComplete()) === 12, 10_000, 'all items complete');
      assert.equal(runs.get('crm-to-erp'), 12);
      const holders = new Set(
        ((await db.knex('queue_items').select('locked_by')) as Array<{ locked_by: string }>).map((row) => row.locked_by),
      );
      assert.ok(holders.size >= 1);
    } finally {
      await Promise.all(daemons.map((running) => running.stop()));
      daemons = [];
      await other.close();
    }
  });
});
