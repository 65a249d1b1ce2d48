/**
 * The schedules of the visible syncs and flows, as the console shows them: the schedule as
 * written, the next slot computed by the scheduler's own slot clock (daemon/schedule-slots.ts), so
 * the console and the scheduler can never disagree on when a run is due, and the last run the
 * scheduler enqueued (queue/last-scheduled-runs.ts).
 */
import type { Snapshot } from '../../definitions/snapshot.js';
import type { Schedule } from '../../definitions/types.js';
import { slotClock, type SlotClock } from '../daemon/schedule-slots.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { lastScheduledRuns } from '../queue/last-scheduled-runs.js';
import type { QueueStatus } from '../queue/queue-item.js';
import type { Visibility } from './visibility.js';

export interface ScheduleSummary {
  id: string;
  kind: 'Sync' | 'Flow';
  name?: string;
  every?: string;
  cron?: string;
  timezone?: string;
  /** The start type of its items: `repeat` for every, `planned` for cron. */
  startType: 'repeat' | 'planned';
  /**
   * Whether its runs come: a daemon (which runs the scheduler beside it) is active somewhere in
   * the cluster, and the schedule has a next slot.
   */
  active: boolean;
  /** The first slot after now (ISO 8601 UTC), or null when there is none. */
  nextRun: string | null;
  lastRun: { slotAt: string; itemId: string; status: QueueStatus | null } | null;
}

/** `daemons`: how many daemons are active across the cluster (cluster/active-daemons.ts). */
export async function scheduleList(
  db: RuntimeDatabase,
  snapshot: Snapshot,
  visible: Visibility,
  options: { daemons: number; now?: Date },
): Promise<ScheduleSummary[]> {
  const now = options.now ?? new Date();
  const scheduled: Array<{ id: string; kind: 'Sync' | 'Flow'; name?: string; schedule: Schedule }> = [];
  for (const [id, sync] of snapshot.syncs) {
    const { schedule, name } = sync.definition;
    if (schedule !== undefined && visible.sync(id)) scheduled.push({ id, kind: 'Sync', schedule, ...(name === undefined ? {} : { name }) });
  }
  for (const [id, flow] of snapshot.flows) {
    const { schedule, name } = flow.definition;
    if (schedule !== undefined && visible.flow(id)) scheduled.push({ id, kind: 'Flow', schedule, ...(name === undefined ? {} : { name }) });
  }
  const lastRuns = await lastScheduledRuns(
    db,
    scheduled.map((entry) => entry.id),
  );
  return scheduled.map(({ id, kind, name, schedule }) => {
    const clock = clockOf(schedule);
    const next = clock?.nextAfter(now) ?? null;
    const last = lastRuns.get(id);
    return {
      id,
      kind,
      ...(name === undefined ? {} : { name }),
      ...(schedule.every === undefined ? {} : { every: schedule.every }),
      ...(schedule.cron === undefined ? {} : { cron: schedule.cron }),
      ...(schedule.timezone === undefined ? {} : { timezone: schedule.timezone }),
      startType: schedule.every === undefined ? 'planned' : 'repeat',
      active: options.daemons > 0 && next !== null,
      nextRun: next === null ? null : next.toISOString(),
      lastRun: last === undefined ? null : { slotAt: last.slotAt.toISOString(), itemId: last.itemId, status: last.status },
    };
  });
}

/** The scheduler skips a schedule whose clock cannot be computed (it logs why); so does the console. */
function clockOf(schedule: Schedule): SlotClock | undefined {
  try {
    return slotClock(schedule);
  } catch {
    return undefined;
  }
}
