/**
 * Waking the daemon when work is enqueued, so it need not poll busily.
 *
 * - In the process: an event on the database's EventEmitter, on every engine.
 * - Across processes on PostgreSQL: `SELECT pg_notify('syncline_queue', '')` after the insert, and
 *   `LISTEN syncline_queue` on a dedicated connection (a pooled one would be handed to other
 *   queries and miss notifications). The listener reconnects after a lost connection and then
 *   reports work once, since notifications sent meanwhile are gone.
 * - Across processes on SQLite and MariaDB there is no signal: the daemon's poll fallback finds
 *   the work.
 *
 * A wake-up is a hint, never a promise: the daemon claims whatever is due, and finding nothing is
 * fine. Two hints for one item (in-process and NOTIFY) are harmless.
 */
import type pg from 'pg';
import type { RuntimeDatabase } from '../database/open-database.js';

export const queueChannel = 'syncline_queue';
const workEvent = 'work';

/**
 * Tells waiting daemons that items are due. Never fails: it is sent once the items are committed,
 * and a caller answered with an error then would send them again — a 500 for an item already
 * enqueued, and a webhook's sender retrying it into a second item. A notification lost only means
 * the daemons' poll finds the items.
 */
export async function announceWork(db: RuntimeDatabase): Promise<void> {
  db.events.emit(workEvent);
  if (db.dialect === 'postgres') await db.knex.raw('SELECT pg_notify(?, ?)', [queueChannel, '']).catch(() => undefined);
}

/** How long a freed place's notification to other processes may wait for others to share it. */
const freedPlaceDelayMs = 25;
const freedPlaceTimers = new WeakMap<RuntimeDatabase, NodeJS.Timeout>();

/**
 * A run under a concurrency limit ended, so an item waiting for its place may be claimed now.
 * Waiters in this process hear it at once; other processes (NOTIFY on PostgreSQL) within
 * `freedPlaceDelayMs`, in one notification for every run that ends meanwhile — a busy daemon ends
 * hundreds of runs a second, and one NOTIFY each would cost a round trip and wake every daemon
 * each time. Never fails: a lost notification only means the poll finds the item.
 */
export function announceFreedPlace(db: RuntimeDatabase): void {
  db.events.emit(workEvent);
  if (db.dialect !== 'postgres' || freedPlaceTimers.has(db)) return;
  const timer = setTimeout(() => {
    freedPlaceTimers.delete(db);
    cancelOnClose();
    db.knex.raw('SELECT pg_notify(?, ?)', [queueChannel, '']).catch(() => undefined);
  }, freedPlaceDelayMs);
  timer.unref();
  freedPlaceTimers.set(db, timer);
  const cancelOnClose = db.onClose(async () => {
    clearTimeout(timer);
    freedPlaceTimers.delete(db);
  });
}

/** Calls `onWork` on work announced in this process only; answers how to stop. */
export function onLocalWork(db: RuntimeDatabase, onWork: () => void): () => void {
  db.events.on(workEvent, onWork);
  return () => void db.events.off(workEvent, onWork);
}

export interface WorkListener {
  /** Stops listening and closes the dedicated connection. */
  close(): Promise<void>;
}

export interface ListenOptions {
  /** A lost or refused LISTEN connection (the listener keeps retrying); default: ignored. */
  onError?: (error: Error) => void;
  /** First wait before reconnecting, doubled up to 30 s (default 1000 ms). */
  reconnectDelayMs?: number;
}

/** Calls `onWork` whenever work may be due: enqueued in this process, or NOTIFY on PostgreSQL. */
export async function listenForWork(db: RuntimeDatabase, onWork: () => void, options: ListenOptions = {}): Promise<WorkListener> {
  const stopLocal = onLocalWork(db, onWork);
  if (db.location.dialect !== 'postgres') return { close: async () => stopLocal() };

  const { default: pgModule } = await import('pg');
  const url = db.location.url;
  const onError = options.onError ?? (() => {});
  const firstDelay = options.reconnectDelayMs ?? 1000;
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let delay = firstDelay;

  const connect = async (): Promise<void> => {
    const candidate = new pgModule.Client({ connectionString: url, application_name: 'syncline-listen' });
    candidate.on('notification', (message) => {
      if (message.channel === queueChannel) onWork();
    });
    candidate.on('error', (error) => {
      onError(error);
      lost(candidate);
    });
    candidate.on('end', () => lost(candidate));
    client = candidate;
    await candidate.connect();
    // LISTEN takes an identifier, which cannot be bound; the channel is the constant above.
    await candidate.query(`LISTEN ${queueChannel}`);
  };

  const lost = (candidate: pg.Client): void => {
    if (closed || client !== candidate) return;
    client = undefined;
    void candidate.end().catch(() => {});
    timer = setTimeout(retry, delay);
    delay = Math.min(delay * 2, 30_000);
  };

  const retry = (): void => {
    timer = undefined;
    if (closed) return;
    connect().then(
      () => {
        delay = firstDelay;
        // Anything enqueued while the connection was down sent no notification we could hear.
        onWork();
      },
      (error: Error) => {
        onError(error);
        if (client !== undefined) lost(client);
      },
    );
  };

  try {
    await connect();
  } catch (error) {
    closed = true;
    if (timer !== undefined) clearTimeout(timer);
    stopLocal();
    const stale = client;
    client = undefined;
    await stale?.end().catch(() => {});
    throw new Error(`cannot listen for queue notifications on ${db.location.display}: ${(error as Error).message}`, { cause: error });
  }

  const close = async (): Promise<void> => {
    closed = true;
    cancelOnClose();
    stopLocal();
    if (timer !== undefined) clearTimeout(timer);
    const current = client;
    client = undefined;
    await current?.end().catch(() => {});
  };
  // Closing the database closes its listeners too, so no connection outlives it.
  const cancelOnClose = db.onClose(close);
  return { close };
}
