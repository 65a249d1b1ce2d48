/** A schedule is `every` or `cron` (with an optional time zone), and the cron expression is real. */
import { Cron } from 'croner';
import type { PathSegment, SourceDocument } from '../load/source-document.js';
import { parseDuration } from '../duration.js';
import { closest } from '../schema/did-you-mean.js';
import type { Schedule } from '../types.js';
import type { CheckContext } from './check-context.js';

/** Shortest interval: a sync scheduled more often than this is almost always a typo (1s for 1m). */
const minimumEveryMs = 1000;

export function checkSchedule(context: CheckContext, source: SourceDocument, path: readonly PathSegment[], schedule: Schedule): void {
  if ((schedule.every === undefined) === (schedule.cron === undefined)) {
    context.report(source, path, 'schedule', 'schedule: give exactly one of every (e.g. every: 15m) and cron (e.g. cron: "0 2 * * *")', {
      key: true,
    });
    return;
  }
  if (schedule.every !== undefined) {
    const ms = parseDuration(schedule.every);
    if (ms !== undefined && ms < minimumEveryMs)
      context.report(source, [...path, 'every'], 'schedule', `schedule.every: ${schedule.every} is shorter than 1s`);
    if (schedule.timezone !== undefined)
      context.report(source, [...path, 'timezone'], 'schedule', 'schedule.timezone applies to cron only', { key: true });
    return;
  }
  if (schedule.timezone !== undefined && !validTimeZone(schedule.timezone)) {
    const guess = closest(schedule.timezone, Intl.supportedValuesOf('timeZone'));
    const hint = guess ? `; did you mean '${guess}'?` : ' (e.g. UTC, Europe/Berlin)';
    context.report(source, [...path, 'timezone'], 'schedule', `schedule.timezone: '${schedule.timezone}' is not an IANA time zone${hint}`);
    return;
  }
  try {
    new Cron(schedule.cron!, { paused: true, timezone: schedule.timezone });
  } catch (error) {
    context.report(
      source,
      [...path, 'cron'],
      'cron',
      `schedule.cron: '${schedule.cron}' is not a valid cron expression: ${(error as Error).message}`,
    );
  }
}

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
