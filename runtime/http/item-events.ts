/**
 * A queue item's progress as server-sent events, shared by GET /api/queue/{id}/events and the
 * webhook test dialog (which relays the run its action queued, with its event names prefixed
 * `run.`):
 *
 *   item      the item as GetAction answers it, at once
 *   progress  the item again whenever its status, attempts, statistics or errors change
 *   done      the item once it is Complete or Failed (with its Errors); then the stream ends
 *   expired   {ID, afterMs}: the stream lived its longest (the run goes on; open a new one)
 *   error     {ID, message}: the runtime database could not be read; the stream ends
 *
 * Every stream holds one of a bounded number of places (`EventStreamSlots`) from the moment it is
 * accepted until it ends: a stream costs a connection and a read every poll interval for as long as
 * it lives, so a client must not be able to open thousands.
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { HttpProblem } from '../errors.js';
import type { Logger } from '../log.js';
import { followItem, isFinished } from '../queue/follow-item.js';
import { queueItemJson, type QueueRow } from '../queue/queue-item.js';
import { eventStreamDefaults } from '../settings.js';
import type { EventStream } from './event-stream.js';

export interface ItemEventSettings {
  /** Most item streams open at once in this process (default 100). */
  maxStreams: number;
  /** Pause between two reads of a followed item, in ms (default 300). */
  pollIntervalMs: number;
  /** Longest one stream follows an item, in ms (default one hour). */
  maxLifetimeMs: number;
}

/** The places for item streams of one process, and how they poll. */
export class EventStreamSlots {
  readonly settings: Readonly<ItemEventSettings>;
  #open = 0;

  constructor(settings: Partial<ItemEventSettings> = {}) {
    this.settings = Object.freeze({ ...eventStreamDefaults, ...settings });
  }

  /** Streams open now. */
  get open(): number {
    return this.#open;
  }

  /** A place, with the function that gives it back (once); undefined when all are taken. */
  tryAcquire(): (() => void) | undefined {
    if (this.#open >= this.settings.maxStreams) return undefined;
    this.#open += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#open -= 1;
    };
  }

  /** A place, or the 503 that tells the client to come back. */
  acquire(): () => void {
    const release = this.tryAcquire();
    if (release === undefined)
      throw new HttpProblem(
        'too-many-streams',
        `This process already serves ${this.settings.maxStreams} event streams, its most at once; try again shortly, or poll GET /api/GetAction/{queueId}.`,
        // A run's stream ends when the run does; a few seconds frees places for most clients.
        { headers: { 'Retry-After': '5' } },
      );
    return release;
  }
}

export interface RelayOptions {
  db: RuntimeDatabase;
  slots: EventStreamSlots;
  log: Logger;
  /** Put before every event name (`run.` in the webhook test stream); default none. */
  prefix?: string;
}

/**
 * Sends `first` as `item`, then follows the item until it finishes, the stream's time is up or the
 * client goes away. Never throws: a failed read is logged and sent as `error`. Does not end the
 * stream (its owner may have more to say) nor release a place (its owner took it).
 */
export async function relayItem(stream: EventStream, first: QueueRow, { db, slots, log, prefix = '' }: RelayOptions): Promise<void> {
  const { pollIntervalMs, maxLifetimeMs } = slots.settings;
  stream.send(`${prefix}item`, queueItemJson(first));
  if (isFinished(first)) {
    stream.send(`${prefix}done`, queueItemJson(first));
    return;
  }
  // A timer of our own rather than AbortSignal.timeout: it is cleared when the run ends, so no
  // hour-long timer outlives each finished stream.
  const expiry = new AbortController();
  const timer = setTimeout(() => expiry.abort(), maxLifetimeMs);
  const signal = AbortSignal.any([stream.signal, expiry.signal]);
  try {
    for await (const item of followItem(db, first, { intervalMs: pollIntervalMs, signal })) {
      stream.send(`${prefix}${isFinished(item) ? 'done' : 'progress'}`, queueItemJson(item));
    }
    if (expiry.signal.aborted && !stream.signal.aborted) stream.send(`${prefix}expired`, { ID: first.id, afterMs: maxLifetimeMs });
  } catch (error) {
    log.warn({ err: error, queueItemId: first.id }, 'following a queue item for an event stream failed');
    stream.send(`${prefix}error`, { ID: first.id, message: 'The queue item could not be read; the log has the details.' });
  } finally {
    clearTimeout(timer);
  }
}
