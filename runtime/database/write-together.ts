/**
 * A group commit on the runtime database: the first call is written once the event loop's current
 * turn ends (at once, but with the calls made in the same turn); calls that arrive
 * while a write runs wait for it and then go together in the next one. So nothing waits at low
 * load, and under load each write carries what piled up during the previous one. Each caller is
 * answered by the write, only after it committed.
 *
 * What is written and how a batch is chosen belong to the user (queue/insert-together.ts,
 * queue/complete-together.ts); this holds the line of waiting calls, the one write loop, and
 * closing: calls not sent yet are refused, the write under way finishes before the pool goes.
 */
import { RuntimeDatabaseClosedError } from './database-failure.js';
import type { RuntimeDatabase } from './open-database.js';

/** A call waiting for its write. */
export interface Waiting<I, O> {
  input: I;
  resolve(output: O): void;
  reject(error: unknown): void;
}

export interface WriteTogetherOptions<I, O> {
  /** What a refused call did not get, for the closing errors ("the queue item was not written"). */
  lost: string;
  /** Removes the next batch from `waiting` (in place) and answers it. */
  take(waiting: Array<Waiting<I, O>>): Array<Waiting<I, O>>;
  /** Writes a batch and settles every entry of it; never rejects. */
  write(batch: Array<Waiting<I, O>>): Promise<void>;
}

export class WriteTogether<I, O> {
  readonly #options: WriteTogetherOptions<I, O>;
  #waiting: Array<Waiting<I, O>> = [];
  /** The write loop while it runs. */
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(db: RuntimeDatabase, options: WriteTogetherOptions<I, O>) {
    this.#options = options;
    db.onClose(async () => {
      this.#closed = true;
      for (const entry of this.#waiting.splice(0))
        entry.reject(new RuntimeDatabaseClosedError(`the runtime database is closing; ${options.lost}`));
      await this.#running;
    });
  }

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      if (this.#closed) return reject(new RuntimeDatabaseClosedError(`the runtime database is closed; ${this.#options.lost}`));
      this.#waiting.push({ input, resolve, reject });
      this.#running ??= this.#run();
    });
  }

  async #run(): Promise<void> {
    // The first write waits for the event loop's turn to end (no timer): ends of runs that settle
    // in one turn, as a burst of answers read from one socket does, then share it.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.#waiting.length > 0) await this.#options.write(this.#options.take(this.#waiting));
    } finally {
      this.#running = undefined;
    }
  }
}

/** The one writer of `db` in `writers`, made by `make` on first use. */
export function writerOf<W>(writers: WeakMap<RuntimeDatabase, W>, db: RuntimeDatabase, make: (db: RuntimeDatabase) => W): W {
  let writer = writers.get(db);
  if (writer === undefined) {
    writer = make(db);
    writers.set(db, writer);
  }
  return writer;
}
