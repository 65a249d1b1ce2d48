/**
 * Answers with records from a stream of pages. A result that fits in its first page is sent as
 * one string (the common, small case, and the fastest); a longer one is streamed page by page so a
 * large read never sits in memory whole.
 */
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { RecordData } from '../../connectors/connection.js';

export async function sendRecords(
  ctx: Context,
  pages: AsyncIterable<RecordData[]>,
  wrap: { before: string; after: string } = { before: '', after: '' },
): Promise<void> {
  const iterator = pages[Symbol.asyncIterator]();
  const first = await iterator.next();
  const firstRecords = first.done ? [] : first.value;
  ctx.type = 'application/json';
  if (first.done) {
    ctx.body = `${wrap.before}${JSON.stringify(firstRecords)}${wrap.after}`;
    return;
  }
  const second = await iterator.next();
  if (second.done) {
    ctx.body = `${wrap.before}${JSON.stringify(firstRecords)}${wrap.after}`;
    return;
  }
  async function* chunks(): AsyncGenerator<string> {
    yield `${wrap.before}[`;
    let separator = '';
    for (const page of [firstRecords, second.value as RecordData[]]) {
      for (const record of page) {
        yield separator + JSON.stringify(record);
        separator = ',';
      }
    }
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const text = next.value.map((record) => JSON.stringify(record)).join(',');
      if (text) yield separator + text;
      if (next.value.length) separator = ',';
    }
    yield `]${wrap.after}`;
  }
  ctx.body = Readable.from(chunks());
}

/** An AbortSignal that fires when the caller goes away before the answer is complete (or has already gone). */
export function requestSignal(ctx: Context): AbortSignal {
  const controller = new AbortController();
  // A connection closed while the body was read emits no second 'close': the work must not start.
  if (ctx.res.destroyed && !ctx.res.writableFinished) controller.abort();
  else {
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) controller.abort();
    });
  }
  return controller.signal;
}
