/**
 * The queue operations on every engine, one behaviour per test, with a fixed clock (`at`): what
 * enqueue stores and GetAction shows, claim order and batches, leases and heartbeats, completing
 * only by the holder, retries with backoff, the reaper both ways, release on shutdown, pruning.
 */
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import type { RuntimeDatabase } from '../../../../runtime/database/open-database.js';
import { claim } from '../../../../runtime/queue/claim.js';
import { completeItem } from '../../../../runtime/queue/complete.js';
import { enqueue, type NewQueueItem } from '../../../../runtime/queue/enqueue.js';
import { getItem } from '../../../../runtime/queue/get-item.js';
import { heartbeat } from '../../../../runtime/queue/heartbeat.js';
import { prune } from '../../../../runtime/queue/prune.js';
import { parseStartType, queueItemJson, type QueueRow } from '../../../../runtime/queue/queue-item.js';
import { countByStatus, nextRunAfter } from '../../../../runtime/queue/queue-summary.js';
import { reap } from '../../../../runtime/queue/reap.js';
import { release } from '../../../../runtime/queue/release.js';
import { failAttempt, retryDelayMs } from '../../../../runtime/queue/retry.js';
import { at, describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';

const lease = 30_000;

test('retry delays double from the backoff up to the cap', () => {
  const policy = { backoffMs: 30_000, maxBackoffMs: 100_000, jitter: 0 };
  assert.deepEqual(
    [1, 2, 3, 4, 50].map((failed) => retryDelayMs(failed, policy)),
    [30_000, 60_000, 100_000, 100_000, 100_000],
  );
});

test('retry delays are spread by ±20% at random, never past the cap', () => {
  const policy = { backoffMs: 30_000, maxBackoffMs: 100_000 };
  // The ends of the range, for the ends of Math.random's [0, 1).
  assert.deepEqual(
    [retryDelayMs(1, policy, 0), retryDelayMs(1, policy, 0.5), retryDelayMs(1, policy, 0.999_999)],
    [24_000, 30_000, 36_000],
  );
  assert.deepEqual([retryDelayMs(3, policy, 0), retryDelayMs(3, policy, 0.999_999)], [80_000, 100_000], 'at the cap only downwards');
  for (const failed of [1, 2, 3]) {
    const base = Math.min(30_000 * 2 ** (failed - 1), 100_000);
    const waits = Array.from({ length: 500 }, () => retryDelayMs(failed, policy));
    assert.ok(
      waits.every((wait) => wait >= base * 0.8 && wait <= Math.min(base * 1.2, 100_000)),
      `attempt ${failed}: ${Math.min(...waits)}…${Math.max(...waits)}`,
    );
    // Items failing together come back at different moments (at the cap, half of them at the cap).
    assert.ok(new Set(waits).size > 200, `attempt ${failed}: only ${new Set(waits).size} different waits`);
  }
});

test('start types are accepted in any case and answered in one spelling', () => {
  assert.deepEqual(['adhoc', 'MANUAL', 'Repeat', 'planned', 'single'].map(parseStartType), [
    'AdHoc',
    'manual',
    'repeat',
    'planned',
    'Single',
  ]);
  assert.equal(parseStartType('weekly'), undefined);
});

await describeEachRuntimeDatabase('queue operations', (runtime) => {
  let db: RuntimeDatabase;
  beforeEach(async () => {
    db = runtime();
    await db.knex('queue_items').delete();
    await db.knex('schedules').delete();
  });

  async function add(processId: string, seconds: number, extra: Partial<NewQueueItem> = {}): Promise<QueueRow> {
    return (await enqueue(db, { processId, startType: 'manual', ...extra }, { now: at(seconds) })).item;
  }

  test('enqueue stores the item; GetAction JSON has ISO UTC dates and the JSON fields', async () => {
    const actionParams = [
      { Name: 'since', Value: '2024-01-01' },
      { Name: 'note', Value: 'Grüße "quoted" \\ ✓' },
    ];
    const { item, created } = await enqueue(
      db,
      { processId: 'crm-to-erp', startType: 'AdHoc', sourceId: 'C-42', whereClause: "status = 'active'", actionParams, maxAttempts: 3 },
      { now: new Date('2030-01-01T10:20:30.123Z') },
    );
    assert.equal(created, true);
    const stored = await getItem(db, item.id);
    assert.deepEqual(stored, item);
    assert.deepEqual(stored, {
      id: item.id,
      processId: 'crm-to-erp',
      startType: 'AdHoc',
      sourceId: 'C-42',
      whereClause: "status = 'active'",
      actionParams,
      status: 'Pending',
      attempts: 0,
      maxAttempts: 3,
      runAfter: new Date('2030-01-01T10:20:30.123Z'),
      lockedBy: null,
      leaseUntil: null,
      createdAt: new Date('2030-01-01T10:20:30.123Z'),
      startedAt: null,
      finishedAt: null,
      statistics: null,
      errors: [],
      slotKey: null,
      concurrencyKey: null,
      concurrencyLimit: null,
      requestId: null,
      retryOf: null,
    });
    assert.deepEqual(queueItemJson(stored!), {
      ID: item.id,
      StartType: 'AdHoc',
      ProcessId: 'crm-to-erp',
      CreatedDate: '2030-01-01T10:20:30.123Z',
      Status: 'Pending',
      SourceId: 'C-42',
      WhereClause: "status = 'active'",
      StartedDate: null,
      FinishedDate: null,
      Attempts: 0,
      Statistics: { Read: 0, Created: 0, Updated: 0, Skipped: 0, Failed: 0, Unchanged: 0 },
      Errors: [],
      RetryOf: null,
    });
    assert.deepEqual(await getItem(db, item.id.toUpperCase()), item, 'ids match in any case');
  });

  test('an item keeps the request id that started it, but GetAction does not show it', async () => {
    const started = await add('crm-to-erp', 0, { requestId: 'trace-4bf92f3577b34da6' });
    const stored = await getItem(db, started.id);
    assert.equal(stored?.requestId, 'trace-4bf92f3577b34da6');
    assert.equal('RequestId' in queueItemJson(stored!), false);
    const long = await add('crm-to-erp', 1, { requestId: 'x'.repeat(300) });
    assert.equal((await getItem(db, long.id))?.requestId, 'x'.repeat(128), 'cut to the column, never refused');
  });

  test('unknown and malformed ids find nothing', async () => {
    assert.equal(await getItem(db, '6f1c2a8e-5b0d-4c39-9a57-3e2b1d0c9f88'), undefined);
    assert.equal(await getItem(db, "1' OR '1'='1"), undefined);
  });

  test('enqueue refuses what the table cannot hold', async () => {
    await assert.rejects(
      enqueue(db, { processId: 'x'.repeat(129), startType: 'manual' }),
      /processId must have 1 to 128 characters, not 129/,
    );
    await assert.rejects(
      enqueue(db, { processId: 'p', startType: 'weekly' as never }),
      /startType 'weekly' is not one of AdHoc, manual, repeat, planned, Single/,
    );
    await assert.rejects(
      enqueue(db, { processId: 'p', startType: 'manual', maxAttempts: 0 }),
      /maxAttempts must be a whole number of at least 1/,
    );
    assert.deepEqual(await countByStatus(db), { Pending: 0, InProgress: 0, Complete: 0, Failed: 0 });
  });

  test('claim takes due items by run_after, then created_at, in batches, and never future ones', async () => {
    const late = await add('a', 0, { runAfter: at(20) });
    const second = await add('b', 2);
    const first = await add('c', 3, { runAfter: at(1) });
    const third = await add('d', 4);
    const future = await add('e', 5, { runAfter: at(3600) });

    const batch = await claim(db, { workerId: 'w1', limit: 2, leaseMs: lease, now: at(30) });
    assert.deepEqual(
      batch.map((item) => item.id),
      [first.id, second.id],
    );
    for (const item of batch) {
      assert.equal(item.status, 'InProgress');
      assert.equal(item.lockedBy, 'w1');
      assert.equal(item.attempts, 1);
      assert.deepEqual(item.startedAt, at(30));
      assert.deepEqual(item.leaseUntil, at(60));
    }
    const rest = await claim(db, { workerId: 'w2', limit: 10, leaseMs: lease, now: at(30) });
    assert.deepEqual(
      rest.map((item) => item.id),
      [third.id, late.id],
    );
    assert.deepEqual(await claim(db, { workerId: 'w3', limit: 10, leaseMs: lease, now: at(31) }), []);
    assert.deepEqual(await nextRunAfter(db), at(3600));
    assert.deepEqual(
      (await claim(db, { workerId: 'w3', limit: 10, leaseMs: lease, now: at(3600) })).map((item) => item.id),
      [future.id],
    );
    assert.equal(await nextRunAfter(db), null);
    assert.deepEqual(await countByStatus(db), { Pending: 0, InProgress: 5, Complete: 0, Failed: 0 });
  });

  test('heartbeat extends only the worker’s own items and answers which it still holds', async () => {
    await add('p', 0);
    await add('p', 1);
    await add('p', 2);
    const [a1, a2] = await claim(db, { workerId: 'A', limit: 2, leaseMs: lease, now: at(10) });
    const [b1] = await claim(db, { workerId: 'B', limit: 1, leaseMs: lease, now: at(10) });

    assert.deepEqual((await heartbeat(db, { workerId: 'A', leaseMs: lease, now: at(20) })).sort(), [a1!.id, a2!.id].sort());
    assert.deepEqual((await getItem(db, a1!.id))?.leaseUntil, at(50));
    assert.deepEqual((await getItem(db, b1!.id))?.leaseUntil, at(40), 'B’s lease untouched');

    assert.deepEqual(await heartbeat(db, { workerId: 'A', ids: [a1!.id, b1!.id], leaseMs: lease, now: at(30) }), [a1!.id]);
    assert.deepEqual((await getItem(db, a1!.id))?.leaseUntil, at(60));
    assert.deepEqual((await getItem(db, a2!.id))?.leaseUntil, at(50), 'only the named ids');
    assert.deepEqual((await getItem(db, b1!.id))?.leaseUntil, at(40));
    assert.deepEqual(await heartbeat(db, { workerId: 'A', ids: [], leaseMs: lease }), []);
  });

  test('only the holder completes an item; statistics and errors are stored', async () => {
    const { id } = await add('p', 0);
    await claim(db, { workerId: 'A', limit: 1, leaseMs: lease, now: at(1) });
    const statistics = { read: 10, created: 4, updated: 3, skipped: 2, failed: 1 };
    const errors = [{ message: 'Email is required', sourceId: 'C-7' }];

    assert.equal(await completeItem(db, { id, workerId: 'B', status: 'Complete', statistics, now: at(5) }), false);
    assert.equal((await getItem(db, id))?.status, 'InProgress');

    assert.equal(await completeItem(db, { id, workerId: 'A', status: 'Complete', statistics, errors, now: at(5) }), true);
    const done = await getItem(db, id);
    assert.equal(done?.status, 'Complete');
    assert.deepEqual(done?.finishedAt, at(5));
    assert.equal(done?.leaseUntil, null);
    assert.equal(done?.lockedBy, 'A', 'the worker that ran it stays visible');
    assert.deepEqual(done?.statistics, statistics);
    assert.deepEqual(done?.errors, [{ message: 'Email is required', sourceId: 'C-7', at: at(5).toISOString() }]);
    assert.deepEqual(queueItemJson(done!).Statistics, { Read: 10, Created: 4, Updated: 3, Skipped: 2, Failed: 1, Unchanged: 0 });
    assert.deepEqual(queueItemJson(done!).Errors, [{ Message: 'Email is required', SourceId: 'C-7', At: '2030-01-01T00:00:05.000Z' }]);
    assert.equal(queueItemJson(done!).StartedDate, '2030-01-01T00:00:01.000Z');
    assert.equal(queueItemJson(done!).FinishedDate, '2030-01-01T00:00:05.000Z');

    assert.equal(await completeItem(db, { id, workerId: 'A', status: 'Failed', now: at(6) }), false, 'a finished item stays finished');
    assert.equal((await getItem(db, id))?.status, 'Complete');
  });

  test('ends recorded at the same time share a write; each caller learns whether its own was recorded', async () => {
    const ids = await Promise.all([0, 0, 0, 0, 0].map(async (seconds) => (await add('p', seconds)).id));
    const held = await claim(db, { workerId: 'A', limit: 5, leaseMs: lease, now: at(1) });
    const attemptOf = new Map(held.map((item) => [item.id, item.attempts]));
    // A field name with what array and JSON text must escape, stored as it was given.
    const cursor = { field: 'a "b", {c}\\d ü', from: 5, to: '7', mark: null };
    const statistics = { read: 2, created: 1, updated: 0, skipped: 1, failed: 0, cursor };
    const answers = await Promise.all([
      completeItem(db, { id: ids[0]!, workerId: 'A', attempt: attemptOf.get(ids[0]!)!, status: 'Complete', statistics, now: at(5) }),
      completeItem(db, { id: ids[1]!, workerId: 'B', status: 'Complete', now: at(5) }),
      completeItem(db, { id: ids[2]!, workerId: 'A', attempt: attemptOf.get(ids[2]!)! + 1, status: 'Complete', now: at(5) }),
      completeItem(db, { id: ids[3]!, workerId: 'A', status: 'Failed', startedAt: at(3), now: at(6) }),
      completeItem(db, { id: ids[4]!, workerId: 'A', status: 'Complete', now: at(7) }),
    ]);
    assert.deepEqual(answers, [true, false, false, true, true], 'another worker, an older attempt: not recorded');
    const stored = await Promise.all(ids.map((id) => getItem(db, id)));
    assert.deepEqual(
      stored.map((item) => item?.status),
      ['Complete', 'InProgress', 'InProgress', 'Failed', 'Complete'],
    );
    assert.deepEqual(stored[0]?.statistics, statistics);
    assert.deepEqual(stored[0]?.finishedAt, at(5));
    assert.equal(stored[0]?.leaseUntil, null);
    assert.deepEqual(stored[3]?.startedAt, at(3), 'a later real start replaces the claim time');
    assert.deepEqual(stored[4]?.startedAt, at(1), 'without one, the claim time stays');
    assert.deepEqual(stored[4]?.finishedAt, at(7));
  });

  test('a failed attempt is retried after a doubling backoff until the attempts are used up', async () => {
    const { id } = await add('p', 0, { maxAttempts: 3 });
    const retry = { backoffMs: 30_000, maxBackoffMs: 3_600_000, jitter: 0 };
    await claim(db, { workerId: 'A', limit: 1, leaseMs: lease, now: at(1) });

    assert.equal(
      await failAttempt(db, { id, workerId: 'B', retry, errors: [{ message: 'not mine' }], now: at(2) }),
      undefined,
      'only the holder',
    );
    assert.deepEqual(await failAttempt(db, { id, workerId: 'A', retry, errors: [{ message: 'source unreachable' }], now: at(2) }), {
      status: 'Pending',
      runAfter: at(32),
    });
    const waiting = await getItem(db, id);
    assert.equal(waiting?.status, 'Pending');
    assert.deepEqual(waiting?.runAfter, at(32));
    assert.equal(waiting?.lockedBy, null);
    assert.equal(waiting?.attempts, 1);

    assert.deepEqual(await claim(db, { workerId: 'A', limit: 1, leaseMs: lease, now: at(31) }), [], 'not before the backoff');
    assert.equal((await claim(db, { workerId: 'A', limit: 1, leaseMs: lease, now: at(32) }))[0]?.attempts, 2);
    assert.deepEqual(await failAttempt(db, { id, workerId: 'A', retry, errors: [{ message: 'source unreachable' }], now: at(40) }), {
      status: 'Pending',
      runAfter: at(100),
    });

    await claim(db, { workerId: 'C', limit: 1, leaseMs: lease, now: at(100) });
    const statistics = { read: 5, created: 0, updated: 0, skipped: 0, failed: 5 };
    assert.deepEqual(
      await failAttempt(db, { id, workerId: 'C', retry, statistics, errors: [{ message: 'target refused' }], now: at(101) }),
      { status: 'Failed' },
    );
    const failed = await getItem(db, id);
    assert.equal(failed?.status, 'Failed');
    assert.equal(failed?.attempts, 3);
    assert.deepEqual(failed?.finishedAt, at(101));
    assert.deepEqual(failed?.statistics, statistics);
    assert.deepEqual(
      failed?.errors.map((error) => error.message),
      ['source unreachable', 'source unreachable', 'target refused'],
    );
  });

  test('the reaper returns a lost worker’s item to Pending while attempts remain', async () => {
    const { id } = await add('p', 0, { maxAttempts: 2 });
    await claim(db, { workerId: 'lost-1', limit: 1, leaseMs: 10_000, now: at(1) });

    assert.deepEqual(await reap(db, { now: at(5) }), { pending: [], failed: [] }, 'the lease still runs');
    assert.deepEqual(await reap(db, { now: at(12) }), { pending: [id], failed: [] });
    const back = await getItem(db, id);
    assert.equal(back?.status, 'Pending');
    assert.equal(back?.attempts, 1, 'the lost attempt counts');
    assert.equal(back?.lockedBy, null);
    assert.equal(back?.leaseUntil, null);
    assert.deepEqual(back?.runAfter, at(0), 'it keeps its place in line');
    assert.deepEqual(back?.errors, [
      {
        message: 'attempt 1 lost its worker lost-1 (lease expired at 2030-01-01T00:00:11.000Z); returned to Pending for attempt 2 of 2',
        at: at(12).toISOString(),
      },
    ]);
    assert.equal(
      await completeItem(db, { id, workerId: 'lost-1', status: 'Complete', now: at(13) }),
      false,
      'the lost worker cannot finish it any more',
    );
    assert.equal((await claim(db, { workerId: 'next', limit: 1, leaseMs: lease, now: at(13) }))[0]?.attempts, 2);
  });

  test('the reaper fails a lost worker’s item after the retry limit, with an error saying so', async () => {
    const { id } = await add('p', 0, { maxAttempts: 1 });
    const other = await add('p', 1);
    await claim(db, { workerId: 'lost-2', limit: 1, leaseMs: 10_000, now: at(2) });
    await claim(db, { workerId: 'alive', limit: 1, leaseMs: 10_000, now: at(2) });
    await heartbeat(db, { workerId: 'alive', leaseMs: 60_000, now: at(10) });

    assert.deepEqual(await reap(db, { now: at(20) }), { pending: [], failed: [id] });
    const failed = await getItem(db, id);
    assert.equal(failed?.status, 'Failed');
    assert.deepEqual(failed?.finishedAt, at(20));
    assert.equal(
      queueItemJson(failed!).Errors[0]?.Message,
      'lost its worker lost-2 (lease expired at 2030-01-01T00:00:12.000Z) after 1 attempt; failed because the retry limit of 1 attempt is reached',
    );
    assert.equal((await getItem(db, other.id))?.status, 'InProgress', 'a heartbeat keeps an item');
  });

  test('release on shutdown returns held items to Pending without using up an attempt', async () => {
    const first = await add('p', 0);
    const second = await add('p', 1);
    const third = await add('p', 2);
    await claim(db, { workerId: 'stopping', limit: 3, leaseMs: lease, now: at(5) });

    assert.equal(await release(db, { workerId: 'stopping', ids: [first.id] }), 1);
    assert.equal(await release(db, { workerId: 'someone-else' }), 0);
    assert.equal(await release(db, { workerId: 'stopping' }), 2);
    for (const { id } of [first, second, third]) {
      const item = await getItem(db, id);
      assert.equal(item?.status, 'Pending');
      assert.equal(item?.attempts, 0);
      assert.equal(item?.lockedBy, null);
      assert.equal(item?.startedAt, null);
    }
    const again = await claim(db, { workerId: 'next', limit: 3, leaseMs: lease, now: at(6) });
    assert.deepEqual(
      again.map((item) => item.id),
      [first.id, second.id, third.id],
      'they keep their order',
    );
  });

  test('prune deletes finished items older than the retention age, and nothing else', async () => {
    const finish = async (seconds: number, status: 'Complete' | 'Failed'): Promise<string> => {
      const { id } = await add('p', seconds);
      await claim(db, { workerId: 'w', limit: 1, leaseMs: lease, now: at(seconds) });
      assert.ok(await completeItem(db, { id, workerId: 'w', status, now: at(seconds) }));
      return id;
    };
    const old = [
      await finish(0, 'Complete'),
      await finish(1, 'Failed'),
      await finish(2, 'Complete'),
      await finish(3, 'Complete'),
      await finish(4, 'Failed'),
    ];
    const recent = await finish(7000, 'Complete');
    const oldPending = await add('p', 0, { runAfter: at(999_999) });
    const oldRunning = await add('p', 0);
    await claim(db, { workerId: 'busy', limit: 1, leaseMs: lease, now: at(10) });

    assert.equal(await prune(db, { retentionMs: 3_600_000, now: at(7200), batchSize: 2 }), old.length);
    for (const id of old) assert.equal(await getItem(db, id), undefined);
    assert.equal((await getItem(db, recent))?.status, 'Complete');
    assert.equal((await getItem(db, oldPending.id))?.status, 'Pending');
    assert.equal((await getItem(db, oldRunning.id))?.status, 'InProgress');
    assert.equal(await prune(db, { retentionMs: 3_600_000, now: at(7200) }), 0);
  });
});
