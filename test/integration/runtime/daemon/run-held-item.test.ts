/**
 * runHeldItem on every engine, with fake runs: how each outcome ends up on the item (complete,
 * retry with backoff, failed), the sync's timeout, a lost lease dropping the result, progress
 * visible while running, a process that is gone, and a run that throws.
 */
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import type { RuntimeDatabase } from '../../../../runtime/database/open-database.js';
import type { RunProcess } from '../../../../runtime/execution/process-run.js';
import { runHeldItem } from '../../../../runtime/execution/run-held-item.js';
import { getItem } from '../../../../runtime/queue/get-item.js';
import type { QueueRow } from '../../../../runtime/queue/queue-item.js';
import { claim } from '../../../../runtime/queue/claim.js';
import { reap } from '../../../../runtime/queue/reap.js';
import { startItem } from '../../../../runtime/queue/start-item.js';
import { describeEachRuntimeDatabase, openRuntimeDatabase } from '../../../support/runtime-databases.js';
import { aborted, captureLog, completeOutcome, eventually, fakeRunner, fakeSnapshot, runUntilAborted, statistics } from './fake-runner.js';

await describeEachRuntimeDatabase('running a held item', (runtime, database) => {
  let db: RuntimeDatabase;
  beforeEach(async () => {
    db = runtime();
    await db.knex('queue_items').delete();
  });

  const start = (maxAttempts = 3, processId = 'crm-to-erp'): Promise<QueueRow> =>
    startItem(db, { processId, startType: 'manual', maxAttempts, whereClause: "a = 'b'" }, { workerId: 'test-worker', leaseMs: 30_000 });

  test('startItem inserts the item InProgress, held, attempt 1, started now', async () => {
    const before = Date.now();
    const item = await start();
    assert.equal(item.status, 'InProgress');
    assert.equal(item.lockedBy, 'test-worker');
    assert.equal(item.attempts, 1);
    assert.ok(item.startedAt !== null && item.startedAt.getTime() >= before - 5);
    assert.ok(item.leaseUntil !== null && item.leaseUntil.getTime() >= before + 29_000);
    await assert.rejects(startItem(db, { processId: 'x', startType: 'repeat', slotKey: 'x@1' }, { workerId: 'w', leaseMs: 1000 }), /slot/);
  });

  test('a complete run makes the item Complete with its statistics; the start reaches the run', async () => {
    const item = await start();
    let seen: unknown;
    const final = await runHeldItem(
      fakeRunner(db, async (_environment, processStart) => {
        seen = { processId: processStart.processId, whereClause: processStart.whereClause };
        return completeOutcome(7);
      }),
      item,
    );
    assert.deepEqual(seen, { processId: 'crm-to-erp', whereClause: "a = 'b'" });
    assert.equal(final.status, 'Complete');
    assert.deepEqual(final.statistics, statistics(7, 7));
    assert.ok(final.finishedAt !== null);
    assert.equal(final.attempts, 1);
  });

  test('a retryable failure returns the item to Pending after the sync backoff', async () => {
    const item = await start(3);
    const before = Date.now();
    const runner = fakeRunner(
      db,
      async () => ({ status: 'Failed', statistics: statistics(2), errors: [{ message: 'crm unreachable' }], retryable: true }),
      {
        snapshot: () => fakeSnapshot({ 'crm-to-erp': { retries: { max: 2, backoff: '45s', maxBackoff: '1m' } } }),
      },
    );
    const final = await runHeldItem(runner, item);
    assert.equal(final.status, 'Pending');
    assert.equal(final.lockedBy, null);
    const wait = final.runAfter.getTime() - before;
    // 45 s ± 20% jitter, plus the time the run took.
    assert.ok(wait >= 36_000 && wait <= 56_000, `waits ${wait}ms`);
    assert.deepEqual(
      final.errors.map((error) => error.message),
      ['crm unreachable'],
    );
  });

  test('a retryable failure of the last attempt fails the item', async () => {
    const item = await start(1);
    const final = await runHeldItem(
      fakeRunner(db, async () => ({
        status: 'Failed',
        statistics: statistics(0),
        errors: [{ message: 'crm unreachable' }],
        retryable: true,
      })),
      item,
    );
    assert.equal(final.status, 'Failed');
  });

  test('a failure that is not retryable fails the item at once', async () => {
    const item = await start(5);
    const final = await runHeldItem(
      fakeRunner(db, async () => ({
        status: 'Failed',
        statistics: statistics(0),
        errors: [{ message: 'WhereClause does not parse' }],
        retryable: false,
      })),
      item,
    );
    assert.equal(final.status, 'Failed');
    assert.deepEqual(
      final.errors.map((error) => error.message),
      ['WhereClause does not parse'],
    );
  });

  test("the sync's timeout stops the run and fails the attempt, saying so", async () => {
    const item = await start(1);
    let signalled = false;
    const run: RunProcess = async (environment, processStart) => {
      await aborted(processStart.signal);
      signalled = true;
      return runUntilAborted(environment, processStart);
    };
    const started = Date.now();
    const final = await runHeldItem(fakeRunner(db, run, { snapshot: () => fakeSnapshot({ 'crm-to-erp': { timeout: '300ms' } }) }), item);
    assert.ok(signalled);
    assert.ok(Date.now() - started < 3000);
    assert.equal(final.status, 'Failed');
    assert.match(final.errors[0]?.message ?? '', /longer than its timeout of 300ms/);
  });

  test("a sync's timeout changed by a reload applies to the next run, not to the one under way", async () => {
    let current = fakeSnapshot({ 'crm-to-erp': { timeout: '30m' } });
    const runner = fakeRunner(db, runUntilAborted, { snapshot: () => current });
    const stop = new AbortController();
    const first = await start(1);
    const firstRun = runHeldItem(runner, first, { signal: stop.signal });
    current = fakeSnapshot({ 'crm-to-erp': { timeout: '200ms' } });
    const started = Date.now();
    // Stopped after 5 s should the old 30 minutes apply: then it is left InProgress and the test says so.
    const second = await runHeldItem(runner, await start(1), { signal: AbortSignal.timeout(5000) });
    assert.ok(Date.now() - started < 3000);
    assert.equal(second.status, 'Failed');
    assert.match(second.errors[0]?.message ?? '', /longer than its timeout of 200ms/);
    // The first run kept its own snapshot's 30 minutes: still running, until stopped.
    assert.equal((await getItem(db, first.id))?.status, 'InProgress');
    stop.abort();
    await firstRun;
  });

  test('a lost lease aborts the run and drops its result', async () => {
    const item = await startItem(
      db,
      { processId: 'crm-to-erp', startType: 'manual', maxAttempts: 3 },
      { workerId: 'test-worker', leaseMs: 300 },
    );
    const { log, lines } = captureLog();
    const run: RunProcess = async (_environment, processStart) => {
      // Another process's reaper decides this worker is gone.
      await reap(db, { now: new Date(Date.now() + 60_000) });
      await aborted(processStart.signal);
      return completeOutcome(99);
    };
    const final = await runHeldItem(fakeRunner(db, run, { leaseMs: 300, log }), item);
    assert.equal(final.status, 'Pending');
    assert.equal(final.statistics, null);
    assert.ok(lines.some((line) => /item lost/.test(line.msg)));
  });

  test('a run whose item was reaped and claimed again by the same worker records nothing over the new attempt', async () => {
    const item = await startItem(
      db,
      { processId: 'crm-to-erp', startType: 'manual', maxAttempts: 3 },
      { workerId: 'test-worker', leaseMs: 30_000 },
    );
    let again: QueueRow | undefined;
    const run: RunProcess = async () => {
      // The worker stalled past its lease: its own daemon's reaper took the item back, and its own
      // claim loop took it again — same worker id, next attempt.
      await reap(db, { now: new Date(Date.now() + 60_000) });
      [again] = await claim(db, { workerId: 'test-worker', limit: 1, leaseMs: 30_000 });
      return completeOutcome(7);
    };
    const final = await runHeldItem(fakeRunner(db, run), item);
    assert.equal(again?.attempts, 2);
    assert.equal(final.status, 'InProgress', 'the old attempt did not complete the new one');
    assert.equal(final.attempts, 2);
    assert.equal(final.statistics, null);
  });

  test('progress statistics are stored while the item runs', async () => {
    const item = await startItem(db, { processId: 'crm-to-erp', startType: 'manual' }, { workerId: 'test-worker', leaseMs: 300 });
    const seenProgress: number[] = [];
    const run: RunProcess = async (_environment, processStart) => {
      processStart.onProgress?.(statistics(5, 4));
      await eventually(async () => (await getItem(db, item.id))?.statistics?.read === 5, 3000, 'progress on the item');
      const running = await getItem(db, item.id);
      assert.equal(running?.status, 'InProgress');
      assert.ok(running!.leaseUntil!.getTime() > item.leaseUntil!.getTime(), 'the heartbeat extended the lease');
      return completeOutcome(10);
    };
    const final = await runHeldItem(fakeRunner(db, run, { leaseMs: 300 }), item, { onProgress: (s) => seenProgress.push(s.read) });
    assert.deepEqual(seenProgress, [5]);
    assert.equal(final.status, 'Complete');
    assert.equal(final.statistics?.read, 10);
  });

  test('an item whose process is not defined is tried again later, saying so, and fails with its last attempt', async () => {
    // A deploy that removes the files and writes them again can be seen between its two halves.
    const item = await start(2, 'renamed-sync');
    const first = await runHeldItem(
      fakeRunner(db, async () => assert.fail('must not run')),
      item,
    );
    assert.equal(first.status, 'Pending');
    assert.ok(first.runAfter.getTime() > Date.now(), 'after a backoff');
    assert.match(first.errors[0]?.message ?? '', /process 'renamed-sync' is not defined: .*a later attempt runs it/);
    const last = await runHeldItem(
      fakeRunner(db, async () => assert.fail('must not run')),
      await startItem(db, { processId: 'renamed-sync', startType: 'manual', maxAttempts: 1 }, { workerId: 'test-worker', leaseMs: 30_000 }),
    );
    assert.equal(last.status, 'Failed');
  });

  test('an item enqueued under a sync id since renamed only in case runs the sync', async () => {
    const item = await start(3, 'CRM-to-ERP');
    let ran: string | undefined;
    const final = await runHeldItem(
      fakeRunner(db, async (_context, request) => {
        ran = request.processId;
        return completeOutcome(1);
      }),
      item,
    );
    assert.equal(final.status, 'Complete');
    assert.equal(ran, 'crm-to-erp');
  });

  test('a run that throws fails the item with a generic message and logs the error', async () => {
    const item = await start(3);
    const { log, lines } = captureLog();
    const final = await runHeldItem(
      fakeRunner(
        db,
        async () => {
          throw new TypeError('secret internals');
        },
        { log },
      ),
      item,
    );
    assert.equal(final.status, 'Failed');
    assert.match(final.errors[0]?.message ?? '', /internal error \(TypeError\)/);
    assert.doesNotMatch(final.errors[0]?.message ?? '', /secret internals/);
    const logged = lines.find((line) => line.level === 50);
    assert.match(JSON.stringify(logged), /secret internals/);
  });

  test('a run whose end cannot be recorded for a moment (the runtime database locked) records it once the database is back, still as attempt 1', {
    timeout: 60_000,
  }, async (t) => {
    if (db.dialect !== 'sqlite')
      return t.skip('a locked SQLite file is the outage a test can make here; the faults tests stop a real PostgreSQL');
    const item = await start(3);
    const { log, lines } = captureLog();
    // Another connection holds the file's write lock across the end of the run, longer than the
    // busy timeout (5 s): the first try to record the end fails with SQLITE_BUSY.
    const blocker = await openRuntimeDatabase(database());
    const locked = blocker.knex.transaction();
    const trx = await locked;
    await trx.raw('DELETE FROM queue_items WHERE id = ?', ['none']);
    const final = await runHeldItem(
      fakeRunner(
        db,
        async () => {
          setTimeout(() => void trx.commit().then(() => blocker.close()), 6500);
          return completeOutcome(4);
        },
        { log },
      ),
      item,
    );
    assert.equal(final.status, 'Complete');
    assert.equal(final.attempts, 1);
    assert.deepEqual(final.errors, []);
    assert.ok(
      lines.some((line) => /cannot record the end of the item \(the database is locked\); trying again/.test(String(line.msg))),
      'the wait was logged',
    );
  });

  test('the caller stopping leaves an unfinished item held', async () => {
    const item = await start(3);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const final = await runHeldItem(fakeRunner(db, runUntilAborted), item, { signal: controller.signal });
    assert.equal(final.status, 'InProgress');
    assert.equal(final.lockedBy, 'test-worker');
  });
});
