/**
 * One writer per file at a time, within a process and across processes (serve and a daemon on the
 * same directory, two daemons), so that no read-modify-write loses another's update.
 *
 * In a process, writers of a file queue in arrival order. Across processes the writer holds a lock
 * file beside the target (`.name.lock`), created with O_EXCL, so exactly one creation succeeds;
 * it holds the holder's host, pid and a random token, and the holder touches it every
 * STALE_AFTER_MS / 3 while it writes. A lock is stale when its holder is a process of this host
 * that no longer runs, or when it has not been touched for STALE_AFTER_MS (a holder on another
 * host, or one that hangs). A stale lock is removed under a second, short-lived lock
 * (`.name.lock.takeover`, also O_EXCL) and only when it still holds the token seen stale — so two
 * writers finding the same stale lock cannot both remove it, nor remove the new lock one of them
 * has just taken. Before its rename the writer checks that the lock is still its own.
 *
 * A writer waits up to the System's lockWait for the lock; then the write is refused as busy.
 */
import { randomUUID } from 'node:crypto';
import { open, readFile, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ConnectorError } from '../connector-error.js';
import { describePlace, fileError, ioError, type Place } from './file-errors.js';

/** A lock not touched for this long is stale (its holder touches it three times as often). */
export const STALE_AFTER_MS = 30_000;

/** A takeover lock older than this was left by a process that died in the middle of a takeover. */
const TAKEOVER_STALE_MS = 10_000;

export interface LockContent {
  host: string;
  pid: number;
  token: string;
  since: string;
}

export interface HeldLock {
  /** Throws 'unavailable' when the lock file no longer holds this writer's token. */
  assertHeld(): Promise<void>;
}

export function lockPathOf(target: string): string {
  return join(dirname(target), `.${basename(target)}.lock`);
}

/** Whether a process with this pid runs on this host (one we may not signal still runs). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function parseLock(text: string): LockContent | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockContent>;
    if (typeof value.host === 'string' && typeof value.pid === 'number' && typeof value.token === 'string') return value as LockContent;
  } catch {
    // Being written, or not ours: judged by its age alone.
  }
  return undefined;
}

/** Whether a lock with this content, last touched at `touchedMs`, may be taken over at `nowMs`. */
export function isStale(content: LockContent | undefined, touchedMs: number, nowMs: number, host = hostname()): boolean {
  if (nowMs - touchedMs > STALE_AFTER_MS) return true;
  return content !== undefined && content.host === host && !processRuns(content.pid);
}

const queues = new Map<string, Promise<void>>();

/** Waits for the writers of `key` ahead in this process, at most until `deadline`; then runs `work`. */
async function inTurn<T>(key: string, deadline: number, busy: () => ConnectorError, work: () => Promise<T>): Promise<T> {
  const ahead = queues.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  // The next writer waits for this one and, through it, for everyone ahead.
  const tail = ahead.then(() => mine);
  queues.set(key, tail);
  let timer: NodeJS.Timeout | undefined;
  try {
    const turn = await Promise.race([
      ahead.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now())))),
    ]);
    if (!turn) throw busy();
    return await work();
  } finally {
    clearTimeout(timer);
    done();
    if (queues.get(key) === tail) queues.delete(key);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates `path` exclusively with `content`; false when it exists. */
async function createExclusive(path: string, content: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(content);
  } catch (error) {
    // A lock file without its holder (the disk full) would be waited for until it is old: it goes.
    await handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return true;
}

/** Removes the lock at `path` if it still holds `seen` (the text judged stale), under the takeover lock. */
async function takeOver(path: string, seen: string): Promise<void> {
  const guard = `${path}.takeover`;
  if (!(await createExclusive(guard, String(process.pid)))) {
    const touched = await stat(guard).catch(() => undefined);
    if (touched !== undefined && Date.now() - touched.mtimeMs > TAKEOVER_STALE_MS) await unlink(guard).catch(() => undefined);
    return;
  }
  try {
    const now = await readFile(path, 'utf8').catch(() => undefined);
    if (now === seen) await unlink(path).catch(() => undefined);
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}

async function acquire(path: string, deadline: number, busy: () => ConnectorError): Promise<LockContent> {
  const content: LockContent = { host: hostname(), pid: process.pid, token: randomUUID(), since: new Date().toISOString() };
  const text = JSON.stringify(content);
  for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
    if (await createExclusive(path, text)) return content;
    const [seen, touched] = await Promise.all([readFile(path, 'utf8').catch(() => undefined), stat(path).catch(() => undefined)]);
    // Gone in between: try again at once.
    if (seen === undefined || touched === undefined) continue;
    if (isStale(parseLock(seen), touched.mtimeMs, Date.now())) {
      await takeOver(path, seen);
      continue;
    }
    if (Date.now() >= deadline) throw busy();
    await sleep(pause + Math.random() * pause);
  }
}

/**
 * Runs `work` holding the write lock of `target` (an absolute path of a file that may not exist
 * yet; its folder must). Waits up to `waitMs`, then refuses with 'busy'.
 */
export async function withFileLock<T>(target: string, waitMs: number, place: Place, work: (lock: HeldLock) => Promise<T>): Promise<T> {
  const deadline = Date.now() + waitMs;
  const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  const busy = () =>
    new ConnectorError(
      'busy',
      `${describePlace(place)}: another writer held the file for all of connection.lockWait (${waitMs} ms); retry after ${retryAfterSeconds} s`,
      { details: { system: place.systemId, ...(place.file === undefined ? {} : { file: place.file }), retryAfterSeconds } },
    );
  return inTurn(target, deadline, busy, async () => {
    const path = lockPathOf(target);
    let mine: LockContent;
    try {
      mine = await acquire(path, deadline, busy);
    } catch (error) {
      throw ioError(place, 'taking the write lock', error);
    }
    const ownText = JSON.stringify(mine);
    const touch = setInterval(() => {
      const now = new Date();
      utimes(path, now, now).catch(() => undefined);
    }, STALE_AFTER_MS / 3);
    touch.unref();
    const lock: HeldLock = {
      async assertHeld() {
        const now = await readFile(path, 'utf8').catch(() => undefined);
        if (now !== ownText) {
          throw fileError(
            'unavailable',
            place,
            'the write lock was taken over while writing (the writer was stalled too long); nothing was written, retry',
          );
        }
      },
    };
    try {
      return await work(lock);
    } finally {
      clearInterval(touch);
      const now = await readFile(path, 'utf8').catch(() => undefined);
      if (now === ownText) await unlink(path).catch(() => undefined);
    }
  });
}
