/**
 * The queue as the runtime database holds it, read when Prometheus scrapes (not kept up to date
 * in between: several processes change it, and the database is the one place that knows):
 *
 * - `syncline_queue_items{status, sync}`: items per status of each sync or flow the definitions
 *   hold — every one of them with every status, zero included, so a rate or an absence in a query
 *   never hinges on an item having existed; items of syncs defined no more count as `(other)`.
 * - `syncline_queue_oldest_pending_age_seconds`: how long the Pending item that has waited
 *   longest has been due (0 when none is) — the backlog's age, whatever its length.
 * - `syncline_daemons_active`: daemons at work on the database, in any process (0: nothing runs
 *   queued items, which then stay Pending).
 *
 * One grouped count and one count per read, shared by the scrapes of a second or two
 * (shared-read.ts). When the database does not answer in time the three are left out of the
 * scrape rather than shown as zero: "no daemon" and "no backlog" must not be claimed on no
 * evidence. /readyz says what is wrong.
 */
import { Gauge, type Registry } from 'prom-client';
import type { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import { countActiveDaemons } from '../cluster/active-daemons.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import type { Logger } from '../log.js';
import { queueDepth, type QueueDepthRow } from '../queue/queue-depth.js';
import { queueStatuses } from '../queue/queue-item.js';
import { processLabel, processLabels } from './metric-labels.js';
import { sharedRead } from './shared-read.js';

/** How long one read serves the scrapes that follow it. */
export const queueReadFreshMs = 2000;
/** How long a scrape waits for the runtime database. */
const queueReadTimeoutMs = 2000;

interface QueueReading {
  depth: QueueDepthRow[];
  daemons: number;
  /** When the read was made: the age of the oldest item is measured against it. */
  at: Date;
}

export interface QueueGaugeSources {
  db: RuntimeDatabase;
  holder: SnapshotHolder;
  log: Logger;
}

export function registerQueueGauges(registry: Registry, { db, holder, log }: QueueGaugeSources): void {
  const reading = sharedRead<QueueReading>(
    async () => {
      const at = new Date();
      const [depth, daemons] = await Promise.all([queueDepth(db), countActiveDaemons(db, at)]);
      return { depth, daemons, at };
    },
    { freshMs: queueReadFreshMs, timeoutMs: queueReadTimeoutMs },
  );
  let failedBefore = false;
  /** The current reading, or undefined (logged once per outage) when there is none. */
  const read = async (): Promise<QueueReading | undefined> => {
    try {
      const value = await reading.get();
      failedBefore = false;
      return value;
    } catch (error) {
      if (!failedBefore) log.warn({ err: error }, 'metrics: the queue cannot be read; its gauges are left out until it can');
      failedBefore = true;
      return undefined;
    }
  };

  new Gauge({
    name: 'syncline_queue_items',
    help: 'Queue items by status and sync (or flow) id, as the runtime database holds them; (other): syncs no longer defined.',
    labelNames: ['status', 'sync'] as const,
    registers: [registry],
    async collect() {
      const value = await read();
      this.reset();
      if (value === undefined) return;
      for (const [key, count] of depthByLabels(value.depth, holder)) {
        const [status, sync] = key.split('\u0000') as [string, string];
        this.set({ status, sync }, count);
      }
    },
  });

  new Gauge({
    name: 'syncline_queue_oldest_pending_age_seconds',
    help: 'Seconds the longest-waiting due Pending item has been due (0 when none is).',
    registers: [registry],
    async collect() {
      const value = await read();
      if (value === undefined) this.remove();
      else this.set(oldestPendingAgeSeconds(value.depth, value.at));
    },
  });

  new Gauge({
    name: 'syncline_daemons_active',
    help: 'Daemons at work on the runtime database, in any process (0: queued items stay Pending).',
    registers: [registry],
    async collect() {
      const value = await read();
      if (value === undefined) this.remove();
      else this.set(value.daemons);
    },
  });
}

/** Counts by `status\0sync`: every defined process with every status, then the rows added in. */
export function depthByLabels(depth: readonly QueueDepthRow[], holder: Pick<SnapshotHolder, 'current'>): Map<string, number> {
  const snapshot = holder.current;
  const counts = new Map<string, number>();
  for (const sync of processLabels(snapshot)) for (const status of queueStatuses) counts.set(`${status}\u0000${sync}`, 0);
  for (const row of depth) {
    const key = `${row.status}\u0000${processLabel(snapshot, row.processId)}`;
    counts.set(key, (counts.get(key) ?? 0) + row.count);
  }
  return counts;
}

/** Seconds since the earliest due Pending item came due, at `now`; 0 when no Pending item is due. */
export function oldestPendingAgeSeconds(depth: readonly QueueDepthRow[], now: Date): number {
  let earliest: number | undefined;
  for (const row of depth) {
    if (row.status !== 'Pending') continue;
    const due = row.earliest.getTime();
    if (due <= now.getTime() && (earliest === undefined || due < earliest)) earliest = due;
  }
  return earliest === undefined ? 0 : (now.getTime() - earliest) / 1000;
}
