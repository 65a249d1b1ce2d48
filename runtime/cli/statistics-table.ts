/**
 * The statistics of a run as `syncline run` prints them — the same table after a run and after a
 * dry run, so the two read alike: a line with the status and the time taken, then Read, Created,
 * Updated, Skipped and Failed right-aligned; how many of the skipped were unchanged and, for a sync
 * with a cursor, the range it read, when there are any; and the rate of reading when it took a
 * second or more.
 */
import type { CursorStatistics, ItemStatistics } from '../queue/queue-item.js';

/** `28 ms`, `1.4 s`. */
export function elapsedText(elapsedMs: number): string {
  const seconds = elapsedMs / 1000;
  return seconds < 1 ? `${Math.round(elapsedMs)} ms` : `${seconds.toFixed(1)} s`;
}

/** `heading` (e.g. `crm-to-erp: Complete in 28 ms (item …)`), a blank line and the table, as lines. */
export function statisticsTable(heading: string, statistics: Readonly<ItemStatistics>, elapsedMs: number): string[] {
  const rows: Array<[string, number]> = [
    ['Read', statistics.read],
    ['Created', statistics.created],
    ['Updated', statistics.updated],
    ['Skipped', statistics.skipped],
    ['Failed', statistics.failed],
  ];
  const width = Math.max(...rows.map(([, value]) => value.toLocaleString('en').length));
  const lines = [heading, '', ...rows.map(([label, value]) => `  ${label.padEnd(8)} ${value.toLocaleString('en').padStart(width)}`)];
  const unchanged = statistics.unchanged ?? 0;
  if (unchanged > 0) {
    lines.push(
      '',
      `  ${unchanged.toLocaleString('en')} of the skipped were unchanged: the target already held their values, nothing was written`,
    );
  }
  if (statistics.cursor !== undefined) lines.push('', ...cursorLines(statistics.cursor));
  const seconds = elapsedMs / 1000;
  if (statistics.read > 0 && seconds >= 1) lines.push('', `  ${Math.round(statistics.read / seconds).toLocaleString('en')} records/s read`);
  return lines;
}

/** `Cursor updated_at: read from 2024-… (full run: everything) to 2024-…; the next run reads from 2024-…`. */
function cursorLines(cursor: CursorStatistics): string[] {
  const from = cursor.from === null ? 'everything (a full run)' : `from ${cursor.from}`;
  const to = cursor.to === null ? 'no record' : `up to ${cursor.to}`;
  return [`  Cursor ${cursor.field}: read ${from}, ${to}`, `  Mark   ${cursor.mark ?? '(none yet: the next run reads everything)'}`];
}
