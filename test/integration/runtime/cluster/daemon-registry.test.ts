/**
 * The daemons table on every engine (runtime/cluster): a daemon's row written, renewed and
 * removed; active until its expiry, gone after it; long-gone rows forgotten; and the presence loop
 * that keeps a daemon registered while it runs. A fixed clock (`at`) except for the loop.
 */
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { pino } from 'pino';
import { activeDaemons, countActiveDaemons, forgetGoneDaemons } from '../../../../runtime/cluster/active-daemons.js';
import { missedHeartbeats, startDaemonPresence } from '../../../../runtime/daemon/daemon-presence.js';
import { removeDaemon, upsertDaemon, type DaemonRecord } from '../../../../runtime/cluster/register-daemon.js';
import { fromDatabaseTime } from '../../../../runtime/database/timestamps.js';
import { at, describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';

const quiet = pino({ level: 'silent' });

function daemon(id: string, startedAt = at(0)): DaemonRecord {
  return { id, host: 'worker-1.example', pid: 4242, version: '1.2.3', command: 'daemon', concurrency: 4, startedAt };
}

/** A heartbeat at `seconds` that counts for 30 s. */
const beatAt = (seconds: number, running = 0) => ({ running, now: at(seconds), expiresAt: at(seconds + 30) });

await describeEachRuntimeDatabase('daemons table', (runtime) => {
  beforeEach(async () => {
    await runtime().knex('daemons').delete();
  });

  test('a registered daemon is active with what it said about itself', async () => {
    await upsertDaemon(runtime(), daemon('host:1:daemon:aa'), beatAt(0, 2));
    assert.deepEqual(await activeDaemons(runtime(), { now: at(10) }), {
      count: 1,
      daemons: [
        {
          id: 'host:1:daemon:aa',
          host: 'worker-1.example',
          pid: 4242,
          version: '1.2.3',
          command: 'daemon',
          concurrency: 4,
          running: 2,
          startedAt: at(0),
          lastHeartbeatAt: at(0),
        },
      ],
    });
  });

  test('a heartbeat renews the row and its running items, keeping when the daemon started', async () => {
    await upsertDaemon(runtime(), daemon('host:1:daemon:aa'), beatAt(0));
    await upsertDaemon(runtime(), daemon('host:1:daemon:aa', at(25)), beatAt(25, 3));
    const [active] = (await activeDaemons(runtime(), { now: at(50) })).daemons;
    assert.equal(active?.running, 3);
    assert.deepEqual(active?.lastHeartbeatAt, at(25));
    assert.deepEqual(active?.startedAt, at(0), 'started_at is the first write');
    assert.equal(await countActiveDaemons(runtime(), at(50)), 1);
  });

  test('a daemon whose heartbeats stopped is gone at its expiry; its row is forgotten later', async () => {
    await upsertDaemon(runtime(), daemon('host:1:daemon:aa'), beatAt(0));
    await upsertDaemon(runtime(), daemon('host:2:daemon:bb'), beatAt(20));
    assert.equal((await activeDaemons(runtime(), { now: at(29) })).count, 2);
    const after = await activeDaemons(runtime(), { now: at(31) });
    assert.deepEqual(
      after.daemons.map((d) => d.id),
      ['host:2:daemon:bb'],
      'gone once its expiry passed',
    );
    assert.equal(await countActiveDaemons(runtime(), at(30)), 1, 'the expiry itself counts as gone');
    assert.equal(await forgetGoneDaemons(runtime(), at(29)), 0, 'not forgotten before the cutoff');
    assert.equal(await forgetGoneDaemons(runtime(), at(31)), 1);
    assert.deepEqual(
      (await runtime().knex('daemons').select('id')).map((row: { id: string }) => row.id),
      ['host:2:daemon:bb'],
    );
  });

  test('a daemon that stops cleanly is gone at once', async () => {
    await upsertDaemon(runtime(), daemon('host:1:daemon:aa'), beatAt(0));
    await removeDaemon(runtime(), 'host:1:daemon:aa');
    assert.deepEqual(await activeDaemons(runtime(), { now: at(1) }), { count: 0, daemons: [] });
    await removeDaemon(runtime(), 'host:1:daemon:aa');
  });

  test('the list is cut at its limit, oldest first; the count is all of them', async () => {
    for (let n = 0; n < 5; n += 1) await upsertDaemon(runtime(), daemon(`host:${n}:daemon:x`, at(n)), beatAt(10));
    const listed = await activeDaemons(runtime(), { now: at(11), limit: 3 });
    assert.equal(listed.count, 5);
    assert.deepEqual(
      listed.daemons.map((d) => d.id),
      ['host:0:daemon:x', 'host:1:daemon:x', 'host:2:daemon:x'],
    );
  });

  test('long values are cut to the columns, never refused', async () => {
    const long = { ...daemon(`${'h'.repeat(300)}:1:daemon:aa`), host: 'h'.repeat(300), version: 'v'.repeat(100) };
    await upsertDaemon(runtime(), long, beatAt(0));
    const [active] = (await activeDaemons(runtime(), { now: at(1) })).daemons;
    assert.equal(active?.id.length, 200);
    assert.equal(active?.host.length, 255);
    assert.equal(active?.version.length, 64);
    await removeDaemon(runtime(), long.id);
    assert.equal(await countActiveDaemons(runtime(), at(1)), 0, 'removed by the id it was registered under');
  });

  test('the presence loop registers at once, renews every heartbeat and removes the row on stop', async () => {
    let running = 0;
    const presence = await startDaemonPresence({
      db: runtime(),
      log: quiet,
      id: 'presence:1:daemon:cc',
      command: 'serve',
      version: '9.9.9',
      concurrency: 2,
      running: () => running,
      heartbeatMs: 100,
    });
    try {
      const first = (await activeDaemons(runtime())).daemons;
      assert.deepEqual(
        first.map((d) => [d.id, d.command, d.concurrency, d.running]),
        [['presence:1:daemon:cc', 'serve', 2, 0]],
      );
      const row = (await runtime().knex('daemons').first('heartbeat_at', 'expires_at')) as Record<string, unknown>;
      assert.equal(
        fromDatabaseTime(row.expires_at).getTime() - fromDatabaseTime(row.heartbeat_at).getTime(),
        missedHeartbeats * 100,
        'gone after three missed heartbeats',
      );
      running = 2;
      const deadline = Date.now() + 5000;
      while ((await activeDaemons(runtime())).daemons[0]?.running !== 2) {
        assert.ok(Date.now() < deadline, 'a heartbeat reports the running items');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const renewed = (await activeDaemons(runtime())).daemons[0]!;
      assert.ok(renewed.lastHeartbeatAt > first[0]!.lastHeartbeatAt);
      assert.deepEqual(renewed.startedAt, first[0]!.startedAt);
    } finally {
      await presence.stop();
    }
    assert.equal(await countActiveDaemons(runtime()), 0);
    assert.deepEqual(await runtime().knex('daemons').select('id'), [], 'the row is deleted, not left to expire');
  });
});
