/**
 * Waking the daemon: in-process signals on every engine, NOTIFY/LISTEN across processes on
 * PostgreSQL (surviving a lost connection), and nothing across processes elsewhere (the daemon
 * polls there).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeEach, test } from 'node:test';
import { claim } from '../../../../runtime/queue/claim.js';
import { enqueue } from '../../../../runtime/queue/enqueue.js';
import { listenForWork } from '../../../../runtime/queue/notify.js';
import { reap } from '../../../../runtime/queue/reap.js';
import { release } from '../../../../runtime/queue/release.js';
import { describeEachRuntimeDatabase, openRuntimeDatabase } from '../../../support/runtime-databases.js';

async function waitFor(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

await describeEachRuntimeDatabase('queue wake-ups', (runtime, database) => {
  beforeEach(async () => {
    await runtime().knex('queue_items').delete();
  });

  test('enqueue, release and reap wake listeners in the process; a future item does not', async () => {
    const db = runtime();
    let wakeUps = 0;
    const listener = await listenForWork(db, () => void (wakeUps += 1));
    try {
      await enqueue(db, { processId: 'p', startType: 'manual', maxAttempts: 2 });
      await waitFor(() => wakeUps >= 1, 'the enqueue wake-up');

      await sleep(50);
      const before = wakeUps;
      await enqueue(db, { processId: 'p', startType: 'manual', runAfter: new Date(Date.now() + 3_600_000) });
      await sleep(100);
      assert.equal(wakeUps, before, 'an item due later wakes nobody (the daemon sleeps until nextRunAfter)');

      await claim(db, { workerId: 'w', limit: 1, leaseMs: 1 });
      await release(db, { workerId: 'w' });
      await waitFor(() => wakeUps > before, 'the release wake-up');

      await claim(db, { workerId: 'lost', limit: 1, leaseMs: 1 });
      const beforeReap = wakeUps;
      await sleep(5);
      assert.equal((await reap(db)).pending.length, 1);
      await waitFor(() => wakeUps > beforeReap, 'the reap wake-up');
    } finally {
      await listener.close();
    }
    const after = wakeUps;
    await enqueue(db, { processId: 'p', startType: 'manual' });
    await sleep(100);
    assert.equal(wakeUps, after, 'a closed listener hears nothing');
  });

  test('another process’s enqueue wakes the listener on PostgreSQL only', async () => {
    const db = runtime();
    const other = await openRuntimeDatabase(database());
    let wakeUps = 0;
    const listener = await listenForWork(db, () => void (wakeUps += 1));
    try {
      await enqueue(other, { processId: 'p', startType: 'manual' });
      if (db.dialect === 'postgres') {
        await waitFor(() => wakeUps === 1, 'the NOTIFY from the other process');
      } else {
        await sleep(200);
        assert.equal(wakeUps, 0, 'no cross-process signal: the daemon’s poll finds the item');
      }
    } finally {
      await listener.close();
      await other.close();
    }
  });

  test('closing the database closes its listeners, and their connections', async () => {
    const other = await openRuntimeDatabase(database());
    let wakeUps = 0;
    await listenForWork(other, () => void (wakeUps += 1));
    await other.close();
    other.events.emit('work');
    assert.equal(wakeUps, 0);
    if (runtime().dialect === 'postgres') {
      const result = (await runtime().knex.raw(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'syncline-listen' AND datname = current_database()",
      )) as { rows: Array<{ n: number }> };
      assert.equal(result.rows[0]?.n, 0, 'no LISTEN connection left');
    }
  });

  test('on PostgreSQL the listener reconnects after losing its connection, and reports work once', async (context) => {
    const db = runtime();
    if (db.dialect !== 'postgres') {
      context.skip('LISTEN exists on PostgreSQL only');
      return;
    }
    let wakeUps = 0;
    const errors: Error[] = [];
    const listener = await listenForWork(db, () => void (wakeUps += 1), { reconnectDelayMs: 20, onError: (error) => errors.push(error) });
    try {
      await db.knex.raw(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'syncline-listen' AND datname = current_database()",
      );
      await waitFor(() => wakeUps === 1, 'the wake-up after reconnecting');
      assert.ok(errors.length >= 1, 'the lost connection was reported');
      await enqueue(db, { processId: 'p', startType: 'manual' });
      // One wake-up from the in-process event, one from NOTIFY on the new connection.
      await waitFor(() => wakeUps === 3, 'NOTIFY on the new connection');
    } finally {
      await listener.close();
    }
  });

  test('on PostgreSQL a NOTIFY that fails does not fail the enqueue it follows: the item is committed, and a caller told otherwise would send it again', async (context) => {
    if (database().engine !== 'postgres') return context.skip('NOTIFY is PostgreSQL only');
    const admin = database().admin;
    const name = ((await admin.raw('SELECT current_database() AS name')) as { rows: Array<{ name: string }> }).rows[0]!.name;
    // A pg_notify that fails, found first by new sessions of this database.
    await admin.raw(
      `CREATE FUNCTION public.pg_notify(text, text) RETURNS void LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'notify broken'; END $$`,
    );
    await admin.raw('ALTER DATABASE ?? SET search_path = public, pg_catalog', [name]);
    const db = await openRuntimeDatabase(database());
    try {
      await assert.rejects(db.knex.raw('SELECT pg_notify(?, ?)', ['syncline_queue', '']), /notify broken/);
      const { item, created } = await enqueue(db, { processId: 'p', startType: 'manual' });
      assert.equal(created, true);
      assert.equal(item.status, 'Pending');
      assert.equal((await db.knex('queue_items').where({ id: item.id }).count({ n: '*' }).first())?.n, '1');
    } finally {
      await db.close();
      await admin.raw('ALTER DATABASE ?? RESET search_path', [name]);
      await admin.raw('DROP FUNCTION public.pg_notify(text, text)');
    }
  });
});
