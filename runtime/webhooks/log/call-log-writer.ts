/**
 * The endpoint's call log, written behind the answers in small batches: a call's entry is built
 * (redacted, capped) before the call answers, put in a buffer, and written with the entries of
 * the calls answered meanwhile in one multi-row INSERT. On SQLite, where every write takes the
 * runtime database's one connection, a write per call cost a turn of that connection per call;
 * a batch costs one turn for many.
 *
 * - A batch starts on the next turn of the event loop after the first entry, so the calls
 *   answered in the same turn share it; while it is written, the next entries gather. At most
 *   `batchSize` entries go into one statement.
 * - The buffer is bounded: when `maxPending` entries wait, a call waits for a batch to be written
 *   before it answers, so a database slower than the callers slows the callers down instead of
 *   growing memory.
 * - Nothing is lost on a clean stop: closing the runtime database writes the buffer first
 *   (`db.onClose`), and `flushCallLog` writes it on demand — the console flushes before it reads
 *   the log, so a call shows in the log as soon as it was answered.
 * - A crash (kill -9, power loss) loses the entries not written yet: those of the calls answered
 *   in the last moment before it, never more than `maxPending` and a batch being written. The calls' effects (queue items,
 *   writes to systems) do not depend on the log and are kept.
 * - A batch the database refuses is written again entry by entry, so one bad entry costs only
 *   itself; an entry refused alone is written once more with notes in place of its payload and
 *   response body (record-call.ts), so a payload the database cannot hold does not cost the entry.
 *   An entry that cannot be written even so (the database is down) is logged and never fails its
 *   call.
 */
import type { Logger } from '../../log.js';
import type { RuntimeDatabase } from '../../database/open-database.js';
import { callLogRow, payloadRefused, pruneIfDue, retentionMsOf, type CallLogRow, type WebhookCallRecord } from './record-call.js';

export interface CallLogWriterOptions {
  /** Most entries in one INSERT (default 100; 15 columns each stays far below every engine's limit of bound values). */
  batchSize?: number;
  /** Most entries waiting to be written before calls wait for room (default 1000). */
  maxPending?: number;
}

interface Pending {
  row: CallLogRow;
  webhookId: string;
  retentionMs: number;
}

export class CallLogWriter {
  readonly #db: RuntimeDatabase;
  readonly #log: Logger;
  readonly #batchSize: number;
  readonly #maxPending: number;
  #pending: Pending[] = [];
  /** The running write loop; undefined while the buffer is empty. */
  #writing: Promise<void> | undefined;
  /** Calls waiting for room in a full buffer. */
  #waiting: Array<() => void> = [];

  constructor(db: RuntimeDatabase, log: Logger, options: CallLogWriterOptions = {}) {
    this.#db = db;
    this.#log = log;
    this.#batchSize = options.batchSize ?? 100;
    this.#maxPending = options.maxPending ?? 1000;
  }

  /** Buffers the call's entry; resolves at once unless the buffer is full. */
  async add(record: WebhookCallRecord): Promise<void> {
    while (this.#pending.length >= this.#maxPending) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#pending.push({ row: callLogRow(this.#db, record), webhookId: record.webhookId, retentionMs: retentionMsOf(record) });
    this.#writing ??= this.#run();
  }

  /** Resolves when every entry added before is written (or found unwritable and logged). */
  async flush(): Promise<void> {
    while (this.#writing !== undefined) await this.#writing;
  }

  async #run(): Promise<void> {
    // Calls answered in this turn of the event loop join the first batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0, this.#batchSize);
        for (const wake of this.#waiting.splice(0, batch.length)) wake();
        await this.#write(batch);
      }
    } finally {
      this.#writing = undefined;
    }
  }

  async #write(batch: Pending[]): Promise<void> {
    const retention = new Map(batch.map((entry) => [entry.webhookId, entry.retentionMs]));
    for (const [webhookId, retentionMs] of retention) {
      await pruneIfDue(this.#db, webhookId, retentionMs).catch((error: unknown) =>
        this.#log.warn({ err: error, webhookId }, 'pruning the webhook call log failed'),
      );
    }
    try {
      await this.#db.knex('webhook_log').insert(batch.map((entry) => entry.row));
      return;
    } catch (error) {
      if (batch.length === 1) return this.#writeAlone(batch[0]!, error);
    }
    for (const entry of batch) {
      await this.#db
        .knex('webhook_log')
        .insert(entry.row)
        .catch((error: unknown) => this.#writeAlone(entry, error));
    }
  }

  /** An entry the database refused: again without its payload; lost only when that is refused too. */
  async #writeAlone(entry: Pending, refusal: unknown): Promise<void> {
    if (entry.row.payload === null && entry.row.response === null) return this.#lost(entry, refusal);
    await this.#db
      .knex('webhook_log')
      .insert(payloadRefused(entry.row))
      .then(
        () =>
          this.#log.warn(
            { err: refusal, webhookId: entry.webhookId, callId: entry.row.id },
            'the webhook call was written to the call log without its payload, which the database refused',
          ),
        (error: unknown) => this.#lost(entry, error),
      );
  }

  #lost(entry: Pending, error: unknown): void {
    this.#log.warn(
      { err: error, webhookId: entry.webhookId, callId: entry.row.id },
      'the webhook call could not be written to the call log',
    );
  }
}

/** One writer per runtime database, so every route and the console see the same buffer. */
const writers = new WeakMap<RuntimeDatabase, CallLogWriter>();

/** The database's writer, made on first use; closing the database writes its buffer first. */
export function callLogWriter(db: RuntimeDatabase, log: Logger, options?: CallLogWriterOptions): CallLogWriter {
  let writer = writers.get(db);
  if (writer === undefined) {
    const created = new CallLogWriter(db, log, options);
    writers.set(db, created);
    db.onClose(() => created.flush());
    writer = created;
  }
  return writer;
}

/** Writes the buffered entries of `db` (none buffered: resolves at once). */
export async function flushCallLog(db: RuntimeDatabase): Promise<void> {
  await writers.get(db)?.flush();
}
