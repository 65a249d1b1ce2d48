/**
 * One writer per file at a time, within a process and across processes (serve and a daemon on the
 * same directory, two daemons), so that no read-modify-write loses another's update.
 *
 * In a process, writers of a file queue in arrival order. Across processes the writer holds a lock
 * file beside the target (`.name.lock`), created with O_EXCL, so exactly one creation succeeds;
 * it holds the holder's host, pid and a random token, and the holder touches it every
 * STALE_AFTER_MS / 3 while it writes. A lock is stale when its holder is a process of this host
 * that no longer runs, or when it has not been touched for STALE_AFTER_MS (a holder on another
 * host, or one that hangs). A stale lock is taken over by renaming it aside (one atomic step, so of
 * two writers finding it stale only one moves it) and then checking that what was moved is still
 * the file judged stale — the same inode, the same modification time, the same text. When it is
 * not (another writer took the lock between the look and the rename), it is put back, by an
 * exclusive create so it never replaces a lock taken meanwhile. Before its rename the writer
 * checks that the lock is still its own, so a writer whose lock went astray writes nothing.
 *
 * Every wait — for this process's writers ahead, for a live holder, for a lock that cannot be read
 * or taken over — ends at the System's lockWait, and pauses between attempts grow (5 ms to 200 ms,
 * with jitter), so no branch spins. At the deadline the write is refused as 'busy' (a live holder)
 * or 'unavailable' (a lock file that cannot be read or moved), naming the file and its lock.
 */
import { randomUUID } from 'node:crypto';
import { open, readFile, rename, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, posix } from 'node:path';
import { ConnectorError } from '../connector-error.js';
import { READ_FLAGS } from './confinement.js';
import { describePlace, fileError, ioError, systemReason, type Place } from './file-errors.js';

/** A lock not touched for this long is stale (its holder touches it three times as often). */
export const STALE_AFTER_MS = 30_000;

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

/** What a look at a lock file saw: its text and the identity of the file that held it. */
export interface LockSight {
  text: string;
  ino: number;
  mtimeMs: number;
}

/** The lock file's text and identity, read through one handle so both are of one file; undefined when there is none. */
export async function inspectLock(path: string): Promise<LockSight | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stats = await handle.stat();
    return { text: await handle.readFile('utf8'), ino: stats.ino, mtimeMs: stats.mtimeMs };
  } finally {
    await handle.close();
  }
}

/**
 * Removes the lock at `path` if it is still the one `stale` saw; true when it removed it. It is
 * renamed aside first and checked there, so what is checked is what is removed: a check and then
 * an unlink by name could remove a lock another writer took in between.
 */
export async function takeOver(path: string, stale: LockSight): Promise<boolean> {
  const aside = `${path}.${process.pid}.${randomUUID().slice(0, 8)}.stale`;
  try {
    await rename(path, aside);
  } catch (error) {
    // Another writer moved it first: look again.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const moved = await inspectLock(aside).catch(() => undefined);
  if (moved !== undefined && moved.ino === stale.ino && moved.mtimeMs === stale.mtimeMs && moved.text === stale.text) {
    await unlink(aside);
    return true;
  }
  try {
    // A live writer's lock: back under its name, unless a third writer has taken the name since —
    // then the writer it belonged to finds it gone before its rename (assertHeld) and writes nothing.
    if (moved !== undefined) await createExclusive(path, moved.text);
  } finally {
    await unlink(aside).catch(() => undefined);
  }
  return false;
}

/**
 * Creates the lock, waiting while a live writer holds it and taking over a stale one, until
 * `deadline`; then `refuse` with the last reason the lock could not be looked at or moved, if any.
 */
async function acquire(path: string, deadline: number, refuse: (problem: unknown) => ConnectorError): Promise<LockContent> {
  const content: LockContent = { host: hostname(), pid: process.pid, token: randomUUID(), since: new Date().toISOString() };
  const text = JSON.stringify(content);
  let problem: unknown;
  for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
    if (await createExclusive(path, text)) return content;
    try {
      const seen = await inspectLock(path);
      problem = undefined;
      if (seen !== undefined && isStale(parseLock(seen.text), seen.mtimeMs, Date.now())) await takeOver(path, seen);
    } catch (error) {
      // A lock that cannot be read or moved (a folder by that name, no permission) may be fixed meanwhile.
      problem = error;
    }
    if (Date.now() >= deadline) throw refuse(problem);
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
  const path = lockPathOf(target);
  // Named as the file is, relative to the directory: a caller never sees a server path.
  const lockName = place.file === undefined ? basename(path) : posix.join(posix.dirname(place.file), basename(path));
  const busy = () =>
    new ConnectorError(
      'busy',
      `${describePlace(place)}: another writer held the file (its lock ${lockName}) for all of connection.lockWait (${waitMs} ms); retry after ${retryAfterSeconds} s, or raise connection.lockWait`,
      { details: { system: place.systemId, ...(place.file === undefined ? {} : { file: place.file }), lock: lockName, retryAfterSeconds } },
    );
  const refuse = (problem: unknown) =>
    problem === undefined
      ? busy()
      : fileError(
          'unavailable',
          place,
          `its lock ${lockName} could not be read or taken over for all of connection.lockWait (${waitMs} ms): ${systemReason(problem)}; remove or repair ${lockName} (it must be a file the service may read and rename)`,
          problem,
        );
  return inTurn(target, deadline, busy, async () => {
    let mine: LockContent;
    try {
      mine = await acquire(path, deadline, refuse);
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
