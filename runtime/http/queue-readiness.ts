/**
 * The queue part of /readyz: how many items are in each status, when the next Pending one is due,
 * and whether a daemon runs in this process. Without a daemon anywhere, Pending items wait (the
 * seed's rule); this is where an operator sees that.
 *
 * The runtime database is asked with a time limit: a probe that hangs with a hung database tells
 * an orchestrator nothing, a quick 503 with the reason does.
 */
import type { RuntimeDatabase } from '../database/open-database.js';
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

export async function queueReadiness(db: RuntimeDatabase, daemonActive: () => boolean, timeoutMs = readinessTimeoutMs): Promise<QueueReadiness> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, 'timeout');
  });
  const query = Promise.all([countByStatus(db), nextRunAfter(db)]);
  try {
    const result = await Promise.race([query, timeout]);
    if (result === 'timeout') {
      query.catch(() => {});
      return { ok: false, reason: `the runtime database did not answer within ${timeoutMs} ms` };
    }
    const [counts, next] = result;
    return { ok: true, queue: { ...counts, nextDue: next?.toISOString() ?? null, daemon: daemonActive() ? 'active' : 'inactive' } };
  } catch (error) {
    // The driver's first line says why (refused, locked, missing table); never the stack or the SQL,
    // nor where the database is: /readyz answers without a token.
    const first = String((error as Error).message ?? error).split('\n')[0]!.replace(/^.*? - /, '');
    return { ok: false, reason: `the runtime database does not answer: ${first}` };
  } finally {
    clearTimeout(timer);
  }
}
