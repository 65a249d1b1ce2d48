/**
 * Ticker messages: what happened during one webhook call, in order (start, filter, hits, stored
 * records, warnings, errors). The call log keeps them; the test function streams them live. Each
 * call has an id; every message is also published on `tickerBus` under that id, so a listener (a
 * server-sent-events stream of the test function) can follow one call as it runs.
 */
import { EventEmitter } from 'node:events';

export const tickerKinds = ['start', 'condition', 'filter', 'hits', 'stored', 'queued', 'written', 'warning', 'error', 'done'] as const;
export type TickerKind = (typeof tickerKinds)[number];

export interface TickerMessage {
  /** ISO 8601 UTC. */
  at: string;
  kind: TickerKind;
  message: string;
  /** Small structured details (counts, ids, a filter's text); never secrets or whole payloads. */
  data?: Record<string, unknown>;
}

export interface Ticker {
  /** The call's id (also the log entry's id). */
  readonly callId: string;
  say(kind: TickerKind, message: string, data?: Record<string, unknown>): void;
  /** Every message so far, oldest first. */
  readonly messages: readonly TickerMessage[];
}

/** Live messages of every call in this process: `emit(callId, message)`. */
export const tickerBus = new EventEmitter();
// A test stream per call id listens; many at once is normal, not a leak.
tickerBus.setMaxListeners(0);

/** Most messages one call keeps: a loop saying something per record must not grow without end. */
const maxMessages = 200;

/**
 * A ticker for the call `callId`. `redact` is applied to every message and every string of its
 * details before it is kept or published: a message quoting a connector's error or a request value
 * must not carry a credential into the log or the live stream.
 */
export function createTicker(
  callId: string,
  redact: (message: string, data?: Record<string, unknown>) => [string, Record<string, unknown>?] = (message, data) => [message, data],
): Ticker {
  const messages: TickerMessage[] = [];
  let truncated = false;
  return {
    callId,
    messages,
    say(kind, said, saidData) {
      const [message, data] = redact(said, saidData);
      const entry: TickerMessage = { at: new Date().toISOString(), kind, message, ...(data === undefined ? {} : { data }) };
      // Past the limit only the end of the story is kept: errors and the final message.
      const room = kind === 'error' || kind === 'done' ? maxMessages + 20 : maxMessages;
      if (messages.length < room) messages.push(entry);
      else if (!truncated) {
        truncated = true;
        messages.push({ at: entry.at, kind: 'warning', message: `further messages of this call are not kept (more than ${maxMessages})` });
      }
      tickerBus.emit(callId, entry);
    },
  };
}
