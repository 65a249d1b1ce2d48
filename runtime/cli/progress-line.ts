/**
 * The progress of `syncline run` on standard error: on a terminal one line redrawn in place (at
 * most ten times a second) with a bar when the number of source records is known; elsewhere (CI
 * logs, a pipe) a plain line every five seconds, so logs stay readable.
 *
 * On a terminal the line is fitted to its width (progress-layout.ts) and redrawn when the window
 * is resized: a line longer than the terminal would wrap, and `\r` then redraws only its last part.
 */
import type { ItemStatistics } from '../queue/queue-item.js';
import { progressText } from './progress-layout.js';

/** What the progress line needs of standard error; a test gives a fake with the same shape. */
export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  /** The terminal's width; absent when not a terminal. */
  readonly columns?: number;
  on(event: 'resize', listener: () => void): unknown;
  off(event: 'resize', listener: () => void): unknown;
}

export class ProgressLine {
  /** The statistics last reported. */
  latest: Readonly<ItemStatistics> | undefined;
  private total: number | undefined;
  private startedAt = performance.now();
  /** The first update is drawn at once, whatever the clock says. */
  private lastDrawn = Number.NEGATIVE_INFINITY;
  private drawn = false;
  private readonly interactive: boolean;
  private readonly redraw = (): void => {
    if (this.drawn) this.draw();
  };

  constructor(
    private readonly out: ProgressStream,
    private readonly label: string,
  ) {
    this.interactive = out.isTTY === true;
  }

  /** `note` says what runs: `item <id>`, `dry run`. */
  start(note: string, total?: number): void {
    this.total = total;
    this.startedAt = performance.now();
    this.out.write(
      `running ${this.label} (${note})${total === undefined ? '' : `, ${total.toLocaleString('en')} source record${total === 1 ? '' : 's'}`}\n`,
    );
    if (this.interactive) this.out.on('resize', this.redraw);
  }

  update(statistics: Readonly<ItemStatistics>): void {
    this.latest = { ...statistics };
    const now = performance.now();
    if (now - this.lastDrawn < (this.interactive ? 100 : 5000)) return;
    this.lastDrawn = now;
    this.draw();
  }

  /** Draws the final state and ends the line; safe to call twice. */
  end(): void {
    if (this.interactive) this.out.off('resize', this.redraw);
    if (this.latest !== undefined && this.interactive) this.draw();
    if (this.drawn && this.interactive) this.out.write('\n');
    this.drawn = false;
  }

  private draw(): void {
    const statistics = this.latest;
    if (statistics === undefined) return;
    const text = progressText(
      { statistics, total: this.total, seconds: (performance.now() - this.startedAt) / 1000 },
      this.interactive ? this.out.columns : undefined,
    );
    if (this.interactive) this.out.write(`\r\x1b[2K${text}`);
    else this.out.write(`${text}\n`);
    this.drawn = true;
  }
}
