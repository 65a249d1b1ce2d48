/**
 * Durations the schema's pattern lets through (any number of any unit) but the runtime cannot use:
 *
 * - one a timer waits (a sync's timeout, a file lock's wait, a request rate's window) past 24 days:
 *   Node's setTimeout fires at once for a delay past 2^31 − 1 ms, so `timeout: 30d` failed every
 *   run after a millisecond;
 * - one added to or taken from the present (a retry's backoff, a log's retention, a schedule's
 *   interval) so long that the time it makes is no date: `backoff: 999999999d` broke the recording
 *   of a failed run, and the item went round through lease expiries with its error lost;
 * - a timeout of zero, which would stop every run at its start.
 *
 * A System's `limits` are checked with its other limits (check-system.ts).
 */
import { parseDuration } from '../duration.js';
import type { PathSegment } from '../load/source-document.js';
import { MAX_TIMEOUT_MS } from '../system-limits.js';
import type { DefinitionKind } from '../types.js';
import type { CheckContext, Registered } from './check-context.js';

const day = 86_400_000;

interface DurationRule {
  path: readonly string[];
  /** Longest allowed, in ms, and as the message writes it. */
  max: number;
  maxText: string;
  /** What the longest is: the message's reason. */
  because: string;
  /** Whether zero is refused. */
  positive?: true;
}

/** A timer's longest wait: setTimeout's 2^31 − 1 ms, 24.8 days. */
const timer = { max: MAX_TIMEOUT_MS, maxText: '24d', because: 'the longest a timer can wait' } as const;
/** A year and a day: past every interval and backoff anyone means, and a date every database holds. */
const year = { max: 366 * day, maxText: '366d', because: 'the longest interval a schedule or retry takes' } as const;
/** Ten years: the longest anything is kept or looked back on. */
const decade = { max: 3650 * day, maxText: '3650d', because: 'the longest time anything is kept or looked back on' } as const;

const rules: Partial<Record<DefinitionKind, readonly DurationRule[]>> = {
  Sync: [
    { path: ['timeout'], ...timer, positive: true },
    { path: ['schedule', 'every'], ...year },
    { path: ['retries', 'backoff'], ...year },
    { path: ['retries', 'maxBackoff'], ...year },
    { path: ['source', 'cursor', 'lookBack'], ...decade },
  ],
  Flow: [{ path: ['schedule', 'every'], ...year }],
  Webhook: [
    { path: ['logRetention'], ...decade },
    { path: ['signature', 'tolerance'], ...decade },
    { path: ['idempotency', 'window'], ...decade },
    { path: ['rateLimit', 'per'], ...decade },
  ],
  System: [
    // The http and odata connectors' request rate, and the file connector's lock wait: timers.
    { path: ['connection', 'rateLimit', 'per'], ...timer },
    { path: ['connection', 'lockWait'], ...timer },
  ],
};

function valueAt(definition: unknown, path: readonly string[]): unknown {
  let value = definition;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export function checkDurations(context: CheckContext, kind: DefinitionKind, { definition, source }: Registered<unknown>): void {
  for (const rule of rules[kind] ?? []) {
    const text = valueAt(definition, rule.path);
    const ms = typeof text === 'string' ? parseDuration(text) : undefined;
    if (ms === undefined) continue;
    const name = rule.path.join('.');
    const path: PathSegment[] = [...rule.path];
    if (rule.positive && ms === 0) {
      context.report(source, path, 'duration-range', `${name}: a duration of 0 would stop every run at its start; give one such as 30m`);
    } else if (ms > rule.max) {
      context.report(
        source,
        path,
        'duration-range',
        `${name}: ${text} is longer than ${rule.maxText}, ${rule.because}; give at most ${rule.maxText}`,
      );
    }
  }
}
