/**
 * The text of `syncline run`'s progress line, fitted to a terminal's width. A line as wide as the
 * terminal or wider wraps, and redrawing it in place then leaves its first part behind on every
 * update; so the line stays within the width, the last column included (a terminal wraps there):
 *
 *   [##########..........]  50% 2,500/5,000 read · created 10 · updated 2,480 · skipped 10 · failed 0 · 1,234/s
 *
 * Narrower, the least important parts go first — the rate, then the counts of what was written —
 * then the bar shrinks (to a readable minimum) and at last goes; the share and the records read
 * stay as long as anything fits. Without a known total there is no bar, and the same order holds.
 */
import type { ItemStatistics } from '../queue/queue-item.js';

export interface ProgressState {
  statistics: Readonly<ItemStatistics>;
  /** Source records the run will read, when counted; a bar needs it. */
  total: number | undefined;
  /** Since the run started. */
  seconds: number;
}

/** The bar's width where there is room for it; narrower down to barMin, then none. */
const barMax = 40;
const barMin = 10;
/** The width of the line where no terminal tells one (a pipe, a CI log): the bar at its usual size. */
const barUnfitted = 24;

/** The line for `state`; fitted to `columns` when given (a terminal), else complete. */
export function progressText(state: ProgressState, columns?: number): string {
  const s = state.statistics;
  const n = (value: number) => value.toLocaleString('en');
  const counts = `created ${n(s.created)} · updated ${n(s.updated)} · skipped ${n(s.skipped)} · failed ${n(s.failed)}`;
  const rate = `${n(state.seconds > 0 ? Math.round(s.read / state.seconds) : 0)}/s`;
  // The last column stays empty: writing into it makes some terminals wrap.
  const room = columns === undefined ? Number.POSITIVE_INFINITY : Math.max(0, columns - 1);

  if (state.total !== undefined && state.total > 0) {
    const share = Math.min(1, s.read / state.total);
    const percent = `${(share * 100).toFixed(0).padStart(3)}%`;
    const read = `${n(s.read)}/${n(state.total)} read`;
    if (columns === undefined) return `${bar(share, barUnfitted)} ${percent} ${[read, counts, rate].join(' · ')}`;
    for (const parts of [[read, counts, rate], [read, counts], [read]]) {
      const rest = ` ${percent} ${parts.join(' · ')}`;
      const width = Math.min(barMax, room - rest.length - 2);
      if (width >= barMin) return `${bar(share, width)}${rest}`;
    }
    return cut(`${percent} ${read}`, room);
  }

  const read = `${n(s.read)} read`;
  const elapsed = `${state.seconds.toFixed(1)} s`;
  for (const parts of [
    [read, counts, rate, elapsed],
    [read, counts, elapsed],
    [read, elapsed],
  ]) {
    const text = parts.join(' · ');
    if (text.length <= room) return text;
  }
  return cut(read, room);
}

/** `[####......]`: `width` cells between the brackets. */
function bar(share: number, width: number): string {
  const filled = Math.round(share * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

/** At most `room` characters, the cut marked with an ellipsis. */
function cut(text: string, room: number): string {
  if (text.length <= room) return text;
  return room <= 0 ? '' : `${text.slice(0, room - 1)}…`;
}
