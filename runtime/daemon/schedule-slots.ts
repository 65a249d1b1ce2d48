/**
 * The slots of a schedule: the times its runs are due.
 * - `every: 15m` (start type `repeat`): the multiples of the interval since the Unix epoch, so
 *   every process computes the same slots without talking to the others, whenever it started.
 * - `cron: "0 2 * * *"` (start type `planned`): the times croner gives, in `timezone` (default UTC).
 */
import { Cron } from 'croner';
import { parseDuration } from '../../definitions/duration.js';
import type { Schedule } from '../../definitions/types.js';
import type { StartType } from '../queue/queue-item.js';

export interface SlotClock {
  startType: Extract<StartType, 'repeat' | 'planned'>;
  /** A text that changes when the schedule does (to tell a changed schedule from a kept one). */
  key: string;
  /** The latest slot at or before `time`, or null when there is none. */
  latestAtOrBefore(time: Date): Date | null;
  /** The first slot after `time`, or null when there is none (a cron that never fires again). */
  nextAfter(time: Date): Date | null;
}

/** The slot clock of a checked schedule (definitions/checks/check-schedule.ts). */
export function slotClock(schedule: Schedule): SlotClock {
  if (schedule.every !== undefined) {
    const intervalMs = parseDuration(schedule.every);
    if (intervalMs === undefined || intervalMs <= 0) throw new RangeError(`schedule.every: '${schedule.every}' is not a duration`);
    return {
      startType: 'repeat',
      key: `every ${intervalMs}`,
      latestAtOrBefore: (time) => new Date(Math.floor(time.getTime() / intervalMs) * intervalMs),
      nextAfter: (time) => new Date((Math.floor(time.getTime() / intervalMs) + 1) * intervalMs),
    };
  }
  const timezone = schedule.timezone ?? 'UTC';
  const cron = new Cron(schedule.cron ?? '', { paused: true, timezone });
  return {
    startType: 'planned',
    key: `cron ${schedule.cron} ${timezone}`,
    // croner's previous runs are strictly before the reference; one millisecond later includes `time`.
    latestAtOrBefore: (time) => cron.previousRuns(1, new Date(time.getTime() + 1))[0] ?? null,
    nextAfter: (time) => cron.nextRun(time),
  };
}
