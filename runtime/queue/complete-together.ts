/**
 * Ends of attempts that arrive together share one write (a group commit): a daemon running many
 * short items ends dozens of them while one end is being written, and one commit each would make
 * the database's commit (its flush to disk) the limit of the whole queue.
 *
 * PostgreSQL, one call with the guard of complete.ts on every row, the ends given as one array
 * per column:
 *   SELECT id FROM syncline_end(?::uuid[], ?::text[], ?::integer[], ?::text[], ?::timestamptz[],
 *                               ?::timestamptz[], ?::json[]) AS ended(id)
 * which runs (migration 013, where it is planned once per session and finds the rows by id):
 *   UPDATE queue_items AS q
 *      SET status = v.status, finished_at = v.finished_at, lease_until = NULL,
 *          started_at = COALESCE(v.started_at, q.started_at),
 *          statistics = COALESCE(v.statistics, q.statistics)
 *     FROM unnest(…the arrays…) AS v(id, locked_by, attempts, status, finished_at, started_at, statistics)
 *    WHERE q.id = v.id AND q.locked_by = v.locked_by AND (q.status = 'InProgress') IS TRUE
 *      AND (v.attempts IS NULL OR q.attempts = v.attempts)
 *   RETURNING q.id
 * The ids returned are the ends that were recorded; an end whose id is missing was no longer held
 * by its worker (reaped, maybe claimed again), so its caller learns `false`, as from one UPDATE.
 * SQLite and MariaDB/MySQL: the same guarded UPDATE per row, in one write transaction.
 *
 * The first end is written at once; ends that arrive while a write runs go together in the next
 * one (database/write-together.ts). Every caller is answered only after its end is committed.
 *
 * A write the database refuses is tried again row by row, so one row's error reaches only its own
 * caller; a database that is away fails them all, and each caller retries as it would its own
 * statement (run-held-item.ts). Only ends without new errors come here: appending errors reads the
 * stored ones first (complete.ts).
 */
import type { Knex } from 'knex';
import { runtimeDatabaseFailure } from '../database/database-failure.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';
import { type Waiting, WriteTogether, writerOf } from '../database/write-together.js';
import { writeTransaction } from '../database/write-transaction.js';
import type { ItemStatistics } from './queue-item.js';

/** One end to record, guarded like complete.ts's heldBy. */
export interface PlainEnd {
  id: string;
  workerId: string;
  attempt?: number;
  status: 'Complete' | 'Failed';
  finishedAt: Date;
  /** When the run really began, if later than the claim's stamp (an item that waited in the daemon's buffer). */
  startedAt?: Date;
  statistics?: ItemStatistics;
}

/** Most ends in one write: the statement binds one array per column, so this only bounds their size. */
const maxEnds = 200;

const batchStatement =
  'SELECT id FROM syncline_end(?::uuid[], ?::text[], ?::integer[], ?::text[], ?::timestamptz[], ?::timestamptz[], ?::json[]) AS ended(id)';

/** The guarded UPDATE of one end on `executor`; true when the worker still held the item. */
async function writeOne(db: RuntimeDatabase, executor: Knex, end: PlainEnd): Promise<boolean> {
  const updated = await executor('queue_items')
    .where({
      id: end.id,
      locked_by: end.workerId,
      status: 'InProgress',
      ...(end.attempt === undefined ? {} : { attempts: end.attempt }),
    })
    .update({
      status: end.status,
      finished_at: toDatabaseTime(db.dialect, end.finishedAt),
      lease_until: null,
      ...(end.startedAt === undefined ? {} : { started_at: toDatabaseTime(db.dialect, end.startedAt) }),
      ...(end.statistics === undefined ? {} : { statistics: JSON.stringify(end.statistics) }),
    });
  // mysql2 counts matched rows (FOUND_ROWS), so an unchanged row still answers 1.
  return updated === 1;
}

/** Writes `ends` in one statement (PostgreSQL) or one transaction; answers the ids recorded. */
export async function writeEnds(db: RuntimeDatabase, ends: readonly PlainEnd[]): Promise<Set<string>> {
  if (db.dialect === 'postgres') {
    // An array binding goes to pg as one parameter, which it sends as an array literal.
    const column = (value: (end: PlainEnd) => string | number | null) => ends.map(value) as unknown as Knex.Value;
    const result = (await db.knex.raw(batchStatement, [
      column((end) => end.id),
      column((end) => end.workerId),
      column((end) => end.attempt ?? null),
      column((end) => end.status),
      column((end) => end.finishedAt.toISOString()),
      column((end) => end.startedAt?.toISOString() ?? null),
      column((end) => (end.statistics === undefined ? null : JSON.stringify(end.statistics))),
    ])) as { rows: Array<{ id: string }> };
    return new Set(result.rows.map((row) => String(row.id)));
  }
  return writeTransaction(db, async (trx) => {
    const recorded = new Set<string>();
    for (const end of ends) if (await writeOne(db, trx, end)) recorded.add(end.id);
    return recorded;
  });
}

type WaitingEnd = Waiting<PlainEnd, boolean>;

/**
 * The next ends to write, one per item: two ends of one item (an old run of an attempt that was
 * reaped and a new one claimed by this same process) go in separate writes, so the ids answered
 * by a write tell each caller its own outcome.
 */
function nextBatch(waiting: WaitingEnd[]): WaitingEnd[] {
  const batch: WaitingEnd[] = [];
  const later: WaitingEnd[] = [];
  const ids = new Set<string>();
  for (const entry of waiting) {
    if (batch.length < maxEnds && !ids.has(entry.input.id)) {
      ids.add(entry.input.id);
      batch.push(entry);
    } else later.push(entry);
  }
  waiting.splice(0, waiting.length, ...later);
  return batch;
}

async function writeBatch(db: RuntimeDatabase, batch: WaitingEnd[]): Promise<void> {
  let recorded: Set<string>;
  try {
    recorded = await writeEnds(
      db,
      batch.map((entry) => entry.input),
    );
  } catch (error) {
    // Away or closing: every row would fail the same way; each caller decides about retrying.
    if (batch.length === 1 || runtimeDatabaseFailure(error) !== undefined) {
      for (const entry of batch) entry.reject(error);
      return;
    }
    for (const entry of batch) {
      await writeOne(db, db.knex, entry.input).then(entry.resolve, entry.reject);
    }
    return;
  }
  for (const entry of batch) entry.resolve(recorded.has(entry.input.id));
}

const writers = new WeakMap<RuntimeDatabase, WriteTogether<PlainEnd, boolean>>();

/** Records one end without new errors, sharing the write with ends recorded at the same time; false when the worker no longer held the item. */
export function completeTogether(db: RuntimeDatabase, end: PlainEnd): Promise<boolean> {
  return writerOf(
    writers,
    db,
    (database) =>
      // Closing: ends not sent yet are refused (their runs' callers log it and the reaper returns the items).
      new WriteTogether<PlainEnd, boolean>(database, {
        lost: 'the end of the item was not recorded',
        take: nextBatch,
        write: (batch) => writeBatch(database, batch),
      }),
  ).submit(end);
}
