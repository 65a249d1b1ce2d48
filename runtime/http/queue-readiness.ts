/**
 * The queue part of /readyz: how many items are in each status, when the next Pending one is due,
 * and the daemons at work on the runtime database across the cluster — in this process or any
 * other, as they register there (daemon/daemon-presence.ts). Without a daemon anywhere, Pending
 * items wait (the seed's rule); this is where an operator sees that, said in words.
 *
 * The runtime database is asked with a time limit: a probe that hangs with a hung database tells
 * an orchestrator nothing, a quick 503 with the reason does. Reads are not enough: the database
 * must take writes too, or nothing can be started (write-probe.ts).
 *
 * /readyz needs no token, so a daemon is shown by what an operator needs to tell it apart —
 * its id (host, process id and a random part, the `locked_by` of its items), host, command,
 * start, last heartbeat, items running and its concurrency — and nothing of its settings.
 */
import { activeDaemons, type ActiveDaemons } from '../cluster/active-daemons.js';
import { runtimeDatabaseFailure } from '../database/database-failure.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { errorCode, writeHealth, type WriteState } from '../database/write-probe.js';
import { countByStatus, nextRunAfter } from '../queue/queue-summary.js';
import type { QueueStatus } from '../queue/queue-item.js';

/** A daemon as /readyz lists it. */
export interface DaemonView {
  id: string;
  host: string;
  /** `daemon`, or `serve` running its daemon. */
  command: string;
  /** ISO 8601 UTC. */
  startedAt: string;
  /** ISO 8601 UTC. */
  lastHeartbeat: string;
  /** Items it ran at its last heartbeat. */
  running: number;
  concurrency: number;
}

export type QueueState = Record<QueueStatus, number> & {
  /** When the earliest Pending item is due (ISO 8601 UTC; maybe past), or null when none is Pending. */
  nextDue: string | null;
  /** Whether a daemon is at work on this database, in this process or another. */
  daemon: 'active' | 'inactive';
  /** The active daemons: how many, and the first `listedDaemons` of them, oldest first. */
  daemons: { count: number; list: DaemonView[] };
  /** Present when no daemon is active: what that means for queued items. */
  note?: string;
};

export type QueueReadiness = { ok: true; queue: QueueState } | { ok: false; reason: string };

/** Default wait for the runtime database before /readyz gives up. */
export const readinessTimeoutMs = 2000;
/** Most daemons /readyz lists (it always counts them all). */
export const listedDaemons = 50;

export const noDaemonNote =
  'no daemon is active on this runtime database: Pending items stay Pending until one starts (syncline daemon, or syncline serve without --no-daemon)';

/**
 * One question to the database at a time, shared by every /readyz call that arrives meanwhile —
 * until the question itself is answered, not just until a caller gave up waiting: /readyz needs
 * no token, so a flood of calls (or a slow database) must not become a pile of COUNT queries.
 */
type Counts = [Awaited<ReturnType<typeof countByStatus>>, Awaited<ReturnType<typeof nextRunAfter>>, ActiveDaemons, WriteState];
const inFlight = new WeakMap<RuntimeDatabase, Promise<Counts>>();

function ask(db: RuntimeDatabase): Promise<Counts> {
  let asking = inFlight.get(db);
  if (asking === undefined) {
    asking = Promise.all([countByStatus(db), nextRunAfter(db), activeDaemons(db, { limit: listedDaemons }), writeHealth(db).check()]);
    const current = asking;
    const forget = (): void => {
      if (inFlight.get(db) === current) inFlight.delete(db);
    };
    current.then(forget, forget);
    inFlight.set(db, current);
  }
  return asking;
}

export async function queueReadiness(db: RuntimeDatabase, timeoutMs = readinessTimeoutMs): Promise<QueueReadiness> {
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
    const [counts, next, daemons, writes] = result;
    if (!writes.ok) return { ok: false, reason: `the runtime database takes no writes: ${writes.reason}` };
    return {
      ok: true,
      queue: {
        ...counts,
        nextDue: next?.toISOString() ?? null,
        daemon: daemons.count > 0 ? 'active' : 'inactive',
        daemons: { count: daemons.count, list: daemons.daemons.map(daemonView) },
        ...(daemons.count > 0 ? {} : { note: noDaemonNote }),
      },
    };
  } catch (error) {
    // Only a category: a driver's message can name the host, port or user, and /readyz answers
    // without a token. The log of the process has the details.
    const failure = runtimeDatabaseFailure(error);
    return { ok: false, reason: `the runtime database does not answer: ${failure?.reason ?? 'the query failed'}${errorCode(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

function daemonView(daemon: ActiveDaemons['daemons'][number]): DaemonView {
  return {
    id: daemon.id,
    host: daemon.host,
    command: daemon.command,
    startedAt: daemon.startedAt.toISOString(),
    lastHeartbeat: daemon.lastHeartbeatAt.toISOString(),
    running: daemon.running,
    concurrency: daemon.concurrency,
  };
}
