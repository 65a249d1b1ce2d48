/**
 * Answers with records from a stream of pages. A result that fits in its first page is sent as
 * one string (the common, small case, and the fastest); a longer one is streamed page by page so a
 * large read never sits in memory whole.
 */
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { RecordData } from '../../connectors/connection.js';
import { HttpProblem } from '../errors.js';
import { answerJson } from '../request/answer-json.js';
import type { Logger } from '../log.js';

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
    ctx.body = `${wrap.before}${answerJson(firstRecords)}${wrap.after}`;
    return;
  }
  const second = await iterator.next();
  if (second.done) {
    ctx.body = `${wrap.before}${answerJson(firstRecords)}${wrap.after}`;
    return;
  }
  // Written before the status is sent, so a record JSON cannot carry in them is a problem answer.
  const opening = recordsText([...firstRecords, ...(second.value as RecordData[])]);
  async function* chunks(): AsyncGenerator<string> {
    yield `${wrap.before}[${opening}`;
    let separator = opening === '' ? '' : ',';
    try {
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        const text = recordsText(next.value);
        if (text) yield separator + text;
        if (next.value.length) separator = ',';
      }
    } catch (error) {
      // The status line has gone out: the answer breaks off unfinished (its JSON does not parse),
      // and the request log and metrics count it as the server error it is, not as a hang-up.
      if (error instanceof HttpProblem && error.code === 'unanswerable-value') {
        ctx.state.answerFailed = true;
        (ctx.state.log as Logger | undefined)?.error({ err: error.cause, path: ctx.path }, error.detail);
      }
      throw error;
    }
    yield `]${wrap.after}`;
  }
  ctx.body = Readable.from(chunks());
}

/** Records as the comma-separated JSON of each (no brackets). */
function recordsText(records: readonly RecordData[]): string {
  return records.map((record) => answerJson(record)).join(',');
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
