/**
 * The write lock's rules: writers of one file in one process take turns in arrival order; a lock
 * file of a live holder is waited for (up to lockWait, then busy); one of a process that no longer
 * runs, or one not touched for STALE_AFTER_MS, is taken over; the holder's own lock file is gone
 * when it is done; every wait ends at lockWait, a lock that cannot be read too; a takeover removes
 * only the very file it judged stale. (Writers in several real processes: test/integration/connectors/file.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import {
  inspectLock,
  isStale,
  lockPathOf,
  parseLock,
  STALE_AFTER_MS,
  takeOver,
  withFileLock,
} from '../../../../connectors/file/file-lock.js';

const directory = mkdtempSync(join(tmpdir(), 'syncline-lock-'));
after(() => rmSync(directory, { recursive: true, force: true }));
const place = { systemId: 'files', file: 'orders.csv' };

/** A pid that ran and is gone. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

test('a lock is stale when its holder on this host is gone, or when it was not touched for STALE_AFTER_MS', () => {
  const now = Date.now();
  const mine = { host: hostname(), pid: process.pid, token: 't', since: '' };
  assert.equal(isStale(mine, now, now), false);
  assert.equal(isStale({ ...mine, pid: deadPid() }, now, now), true);
  assert.equal(isStale({ ...mine, host: 'elsewhere', pid: deadPid() }, now, now), false, 'a pid of another host says nothing here');
  assert.equal(isStale({ ...mine, host: 'elsewhere' }, now - STALE_AFTER_MS - 1, now), true);
  assert.equal(isStale(undefined, now, now), false, 'a lock being written is judged by its age alone');
  assert.equal(isStale(undefined, now - STALE_AFTER_MS - 1, now), true);
  assert.deepEqual(parseLock(JSON.stringify(mine)), mine);
  assert.equal(parseLock('{"host":'), undefined);
});

test('writers of one file in one process take turns in the order they came', async () => {
  const target = join(directory, 'turns.csv');
  const order: string[] = [];
  const slow = (name: string, ms: number) =>
    withFileLock(target, 5000, place, async () => {
      order.push(`${name} in`);
      assert.ok(existsSync(lockPathOf(target)));
      await new Promise((resolve) => setTimeout(resolve, ms));
      order.push(`${name} out`);
    });
  await Promise.all([slow('a', 30), slow('b', 1), slow('c', 10)]);
  assert.deepEqual(order, ['a in', 'a out', 'b in', 'b out', 'c in', 'c out']);
  assert.equal(existsSync(lockPathOf(target)), false, 'the lock file is gone after the last writer');
});

test("a live holder's lock is waited for, then the write is refused as busy", async () => {
  const target = join(directory, 'held.csv');
  writeFileSync(lockPathOf(target), JSON.stringify({ host: hostname(), pid: process.pid, token: 'other', since: '' }));
  const started = Date.now();
  await assert.rejects(
    withFileLock(target, 300, place, async () => assert.fail('must not run')),
    (error: unknown) => error instanceof ConnectorError && error.code === 'busy' && /lockWait/.test(error.message),
  );
  assert.ok(Date.now() - started >= 290);
  assert.equal(readFileSync(lockPathOf(target), 'utf8').includes('other'), true, "someone else's lock is left alone");
  rmSync(lockPathOf(target));
});

test('the lock of a process that died, or one nobody touched for too long, is taken over', async () => {
  const target = join(directory, 'stale.csv');
  writeFileSync(lockPathOf(target), JSON.stringify({ host: hostname(), pid: deadPid(), token: 'dead', since: '' }));
  assert.equal(await withFileLock(target, 1000, place, async () => 'ran'), 'ran');
  writeFileSync(lockPathOf(target), JSON.stringify({ host: 'elsewhere', pid: 1, token: 'old', since: '' }));
  const long = new Date(Date.now() - STALE_AFTER_MS - 5000);
  utimesSync(lockPathOf(target), long, long);
  assert.equal(await withFileLock(target, 1000, place, async () => 'ran'), 'ran');
  assert.equal(existsSync(lockPathOf(target)), false);
});

test('the holder can tell when its lock was taken from it', async () => {
  const target = join(directory, 'lost.csv');
  await assert.rejects(
    withFileLock(target, 1000, place, async (lock) => {
      await lock.assertHeld();
      writeFileSync(lockPathOf(target), JSON.stringify({ host: 'elsewhere', pid: 1, token: 'thief', since: '' }));
      await lock.assertHeld();
    }),
    (error: unknown) => error instanceof ConnectorError && error.code === 'unavailable' && /taken over/.test(error.message),
  );
  assert.match(readFileSync(lockPathOf(target), 'utf8'), /thief/, "the new holder's lock is not removed");
});

test('an unreadable lock file is waited for until lockWait, then refused as unavailable', { timeout: 5000 }, async () => {
  const target = join(directory, 'blocked.csv');
  // A folder where the lock file should be: it cannot be created, read nor judged stale.
  mkdirSync(lockPathOf(target));
  const started = Date.now();
  await assert.rejects(
    withFileLock(target, 300, { systemId: 'files', file: 'in/blocked.csv' }, async () => assert.fail('must not run')),
    (error: unknown) =>
      error instanceof ConnectorError &&
      error.code === 'unavailable' &&
      error.message.includes('in/.blocked.csv.lock') &&
      /remove or repair/.test(error.message) &&
      !error.message.includes(directory),
  );
  assert.ok(Date.now() - started >= 290);
  rmSync(lockPathOf(target), { recursive: true });
});

test('a takeover removes only the file it judged stale, and gives back a lock taken in between', async () => {
  const target = join(directory, 'race.csv');
  const lock = lockPathOf(target);
  const text = JSON.stringify({ host: 'elsewhere', pid: 1, token: 'same', since: '' });
  writeFileSync(lock, text);
  const seen = (await inspectLock(lock))!;
  // Between the look and the takeover, the stale lock went and a live writer created one with the same text.
  renameSync(lock, `${lock}.gone`);
  writeFileSync(lock, text);
  rmSync(`${lock}.gone`);
  assert.equal(await takeOver(lock, seen), false);
  assert.equal(readFileSync(lock, 'utf8'), text, "the live writer's lock is back under its name");
  assert.deepEqual(
    readdirSync(directory).filter((name) => name.includes('race.csv') && name !== '.race.csv.lock'),
    [],
    'nothing left aside',
  );
  const again = (await inspectLock(lock))!;
  assert.equal(await takeOver(lock, again), true);
  assert.equal(existsSync(lock), false);
});
