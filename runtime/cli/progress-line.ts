/**
 * The progress of `syncline run` on standard error: on a terminal one line redrawn in place (at
 * most ten times a second) with a bar when the number of source records is known; elsewhere (CI
 * logs, a pipe) a plain line every five seconds, so logs stay readable.
 */
import type { ItemStatistics } from '../queue/queue-item.js';

const barWidth = 24;

export class ProgressLine {
  /** The statistics last reported. */
  latest: Readonly<ItemStatistics> | undefined;
  private total: number | undefined;
  private startedAt = performance.now();
  private lastDrawn = 0;
  private drawn = false;
  private readonly interactive: boolean;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly label: string,
  ) {
    this.interactive = out.isTTY === true;
  }

  start(itemId: string, total?: number): void {
    this.total = total;
    this.startedAt = performance.now();
    this.out.write(
      `running ${this.label} (item ${itemId})${total === undefined ? '' : `, ${total.toLocaleString('en')} source records`}\n`,
    );
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
    if (this.latest !== undefined && this.interactive) this.draw();
    if (this.drawn && this.interactive) this.out.write('\n');
    this.drawn = false;
  }

  private draw(): void {
    const s = this.latest;
    if (s === undefined) return;
    const seconds = (performance.now() - this.startedAt) / 1000;
    const rate = seconds > 0 ? Math.round(s.read / seconds) : 0;
    const counts = `created ${s.created.toLocaleString('en')} · updated ${s.updated.toLocaleString('en')} · skipped ${s.skipped.toLocaleString('en')} · failed ${s.failed.toLocaleString('en')}`;
    let text: string;
    if (this.total !== undefined && this.total > 0) {
      const share = Math.min(1, s.read / this.total);
      const filled = Math.round(share * barWidth);
      text = `[${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}] ${(share * 100).toFixed(0).padStart(3)}% ${s.read.toLocaleString('en')}/${this.total.toLocaleString('en')} read · ${counts} · ${rate.toLocaleString('en')}/s`;
    } else {
      text = `${s.read.toLocaleString('en')} read · ${counts} · ${rate.toLocaleString('en')}/s · ${seconds.toFixed(1)} s`;
    }
    if (this.interactive) this.out.write(`\r\x1b[2K${text}`);
    else this.out.write(`${text}\n`);
    this.drawn = true;
  }
}
