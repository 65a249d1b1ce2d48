/**
 * The queue part of /readyz: how many items are in each status, when the next Pending one is due,
 * and whether a daemon runs in this process. Without a daemon anywhere, Pending items wait (the
 * seed's rule); this is where an operator sees that.
 *
 * The runtime database is asked with a time limit: a probe that hangs with a hung database tells
 * an orchestrator nothing, a quick 503 with the reason does. Reads are not enough: the database
 * must take writes too, or nothing can be started (write-probe.ts).
 */
import { runtimeDatabaseFailure } from '../database/database-failure.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { errorCode, writeHealth, type WriteState } from '../database/write-probe.js';
import { countByStatus, nextRunAfter } from '../queue/queue-summary.js';
import type { QueueStatus } from '../queue/queue-item.js';

export type QueueState = Record<QueueStatus, number> & {
  /** When the earliest Pending item is due (ISO 8601 UTC; maybe past), or null when none is Pending. */
  nextDue: string | null;
  /** Whether this process runs a daemon; others may, on a shared database. */
  daemon: 'active' | 'inactive';
};

export type QueueReadiness = { ok: true; queue: QueueState } | { ok: false; reason: string };

/** Default wait for the runtime database before /readyz gives up. */
export const readinessTimeoutMs = 2000;

/**
 * One question to the database at a time, shared by every /readyz call that arrives meanwhile —
 * until the question itself is answered, not just until a caller gave up waiting: /readyz needs
 * no token, so a flood of calls (or a slow database) must not become a pile of COUNT queries.
 */
type Counts = [Awaited<ReturnType<typeof countByStatus>>, Awaited<ReturnType<typeof nextRunAfter>>, WriteState];
const inFlight = new WeakMap<RuntimeDatabase, Promise<Counts>>();

function ask(db: RuntimeDatabase): Promise<Counts> {
  let asking = inFlight.get(db);
  if (asking === undefined) {
    asking = Promise.all([countByStatus(db), nextRunAfter(db), writeHealth(db).check()]);
    const current = asking;
    const forget = (): void => {
      if (inFlight.get(db) === current) inFlight.delete(db);
    };
    current.then(forget, forget);
    inFlight.set(db, current);
  }
  return asking;
}

export async function queueReadiness(
  db: RuntimeDatabase,
  daemonActive: () => boolean,
  timeoutMs = readinessTimeoutMs,
): Promise<QueueReadiness> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, 'timeout');
  });
  const query = ask(db);
  try {
    const result = await Promise.race([query, timeout]);
    if (result === 'timeout') {
      query.catch(() => {});
      return { ok: false, reason: `the runtime database did not answer within ${timeoutMs} ms` };
    }
    const [counts, next, writes] = result;
    if (!writes.ok) return { ok: false, reason: `the runtime database takes no writes: ${writes.reason}` };
    return { ok: true, queue: { ...counts, nextDue: next?.toISOString() ?? null, daemon: daemonActive() ? 'active' : 'inactive' } };
  } catch (error) {
    // Only a category: a driver's message can name the host, port or user, and /readyz answers
    // without a token. The log of the process has the details.
    const failure = runtimeDatabaseFailure(error);
    return { ok: false, reason: `the runtime database does not answer: ${failure?.reason ?? 'the query failed'}${errorCode(error)}` };
  } finally {
    clearTimeout(timer);
  }
}
