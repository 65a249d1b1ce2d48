/**
 * The progress line of `syncline run` on terminals of several widths: it never reaches the last
 * column, drops the rate, then the counts, then shrinks and drops the bar; and it is redrawn to the
 * new width when the terminal is resized. A fake terminal stands in for standard error.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { progressText, type ProgressState } from '../../../../runtime/cli/progress-layout.js';
import { ProgressLine, type ProgressStream } from '../../../../runtime/cli/progress-line.js';

const halfway: ProgressState = {
  statistics: { read: 2500, created: 10, updated: 2480, skipped: 10, failed: 0 },
  total: 5000,
  seconds: 2,
};

test('80 columns: the rate and the counts go before the bar does, within 79 characters', () => {
  const text = progressText(halfway, 80);
  assert.equal(text, `[${'#'.repeat(20)}${'.'.repeat(20)}]  50% 2,500/5,000 read`);
});

test('95 columns: the counts fit beside a shorter bar; the rate does not', () => {
  const text = progressText(halfway, 95);
  assert.equal(text, `[${'#'.repeat(9)}${'.'.repeat(8)}]  50% 2,500/5,000 read · created 10 · updated 2,480 · skipped 10 · failed 0`);
  assert.equal(text.length, 94);
});

test('200 columns: a longer bar, with the rate', () => {
  const text = progressText(halfway, 200);
  assert.equal(
    text,
    `[${'#'.repeat(20)}${'.'.repeat(20)}]  50% 2,500/5,000 read · created 10 · updated 2,480 · skipped 10 · failed 0 · 1,250/s`,
  );
});

test('40 columns: the counts go, the bar shrinks to what is left', () => {
  const text = progressText(halfway, 40);
  assert.equal(text, `[${'#'.repeat(8)}${'.'.repeat(7)}]  50% 2,500/5,000 read`);
  assert.equal(text.length, 39);
});

test('too narrow for a bar: the share and the records read; narrower still, cut with an ellipsis', () => {
  assert.equal(progressText(halfway, 30), ' 50% 2,500/5,000 read');
  assert.equal(progressText(halfway, 12), ' 50% 2,500…');
  for (const columns of [1, 5, 20, 33, 34, 60, 79, 81, 120]) {
    assert.ok(progressText(halfway, columns).length < columns || columns === 1, `${columns} columns`);
  }
});

test('without a total: no bar, and the same order of dropping', () => {
  const unknown = { ...halfway, total: undefined };
  assert.equal(progressText(unknown), '2,500 read · created 10 · updated 2,480 · skipped 10 · failed 0 · 1,250/s · 2.0 s');
  assert.equal(progressText(unknown, 80), '2,500 read · created 10 · updated 2,480 · skipped 10 · failed 0 · 2.0 s');
  assert.equal(progressText(unknown, 40), '2,500 read · 2.0 s');
});

test('no terminal width (a pipe, a CI log): the whole line with the usual bar', () => {
  assert.match(progressText(halfway), /^\[#{12}\.{12}\] {2}50% 2,500\/5,000 read · .* · 1,250\/s$/);
});

/** A terminal: records what is written, has a width, and can be resized. */
class FakeTerminal extends EventEmitter implements ProgressStream {
  readonly isTTY = true;
  written: string[] = [];
  constructor(public columns: number) {
    super();
  }
  write(text: string): boolean {
    this.written.push(text);
    return true;
  }
  resize(columns: number): void {
    this.columns = columns;
    this.emit('resize');
  }
  /** What the line shows now: the text after the last clear. */
  get line(): string {
    const last = this.written.at(-1) ?? '';
    return last.slice(last.lastIndexOf('\x1b[2K') + 4);
  }
}

test('a resize redraws the line at once, fitted to the new width; the end stops listening', () => {
  const terminal = new FakeTerminal(200);
  const progress = new ProgressLine(terminal, 'crm-to-erp');
  progress.start('item item-1', 5000);
  assert.equal(terminal.written[0], 'running crm-to-erp (item item-1), 5,000 source records\n');
  progress.update(halfway.statistics);
  assert.match(terminal.line, /^\[#+\.+\] {2}50% .* · \d[\d,]*\/s$/);
  assert.ok(terminal.line.length < 200);

  const before = terminal.written.length;
  terminal.resize(40);
  assert.equal(terminal.written.length, before + 1, 'redrawn on resize');
  assert.ok(terminal.line.length < 40, terminal.line);
  assert.match(terminal.line, /^\[#+\.+\] {2}50% 2,500\/5,000 read$/);

  progress.end();
  assert.equal(terminal.written.at(-1), '\n');
  assert.equal(terminal.listenerCount('resize'), 0);
  const after = terminal.written.length;
  terminal.resize(80);
  assert.equal(terminal.written.length, after, 'no drawing after the end');
});

test('not a terminal: plain lines, whole, and no resize listener', () => {
  const pipe = new FakeTerminal(40);
  Object.defineProperty(pipe, 'isTTY', { value: false });
  const progress = new ProgressLine(pipe, 'crm-to-erp');
  progress.start('item item-1', 5000);
  progress.update(halfway.statistics);
  assert.equal(pipe.listenerCount('resize'), 0);
  assert.match(pipe.written.at(-1)!, /^\[#{12}\.{12}\] {2}50% .*\/s\n$/);
  progress.end();
});
