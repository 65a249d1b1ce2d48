/**
 * Complete: the holder ends its attempt as Complete or Failed, with the attempt's statistics and
 * errors (appended to those of earlier attempts). Only the worker still holding the item can: a
 * worker whose item was reaped and claimed by another gets `false` and must drop its result.
 *
 * Without new errors, one statement, shared with the ends recorded at the same time
 * (complete-together.ts):
 *   UPDATE queue_items SET status = ?, finished_at = ?, lease_until = NULL, statistics = ?
 *    WHERE id = ? AND locked_by = ? AND status = 'InProgress'
 * With new errors, in one write transaction (write-transaction.ts):
 *   SELECT attempts, max_attempts, errors FROM queue_items
 *    WHERE id = ? AND locked_by = ? AND status = 'InProgress'  FOR UPDATE  (not on SQLite)
 *   UPDATE queue_items
 *      SET status = ?, finished_at = ?, lease_until = NULL, statistics = ?, errors = ?
 *    WHERE id = ? AND locked_by = ? AND status = 'InProgress'
 *
 * `locked_by` stays on a finished item: it names the worker that ran it last.
 */
import type { Knex } from 'knex';
import { fromJsonColumn } from '../database/column-values.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';
import { writeTransaction } from '../database/write-transaction.js';
import { completeTogether } from './complete-together.js';
import type { ItemError, ItemStatistics } from './queue-item.js';

/** An error to record; `at` defaults to the operation's `now`. */
export interface NewItemError {
  message: string;
  sourceId?: string;
  at?: Date;
}

export interface HeldItem {
  attempts: number;
  maxAttempts: number;
  errors: ItemError[];
}

export interface AttemptResult {
  id: string;
  workerId: string;
  /**
   * The attempt the worker runs (the item's `attempts` when claimed). With it, only that attempt
   * is recorded: a worker whose item was reaped and claimed again by the same worker id (its own
   * daemon) must not record the old run over the new one.
   */
  attempt?: number;
  statistics?: ItemStatistics;
  errors?: readonly NewItemError[];
  /**
   * When the run really began, stored as the item's start when given: the claim stamps its own
   * time, and an item that waited in the daemon's buffer (daemon.ts) began later than that.
   */
  startedAt?: Date;
  now?: Date;
}

/**
 * Longest message and source id an item keeps. maxErrors caps how many errors a run keeps, not
 * their size: records keyed by 2 MB strings, with a mapping that refused them, made a 20 MB item
 * (its every read and event resends it). What is cut says how much was.
 */
export const maxErrorMessageLength = 4000;
export const maxErrorSourceIdLength = 1000;

/** `text` cut to `max` characters, saying how many more there were; never between the halves of a surrogate pair. */
export function clipped(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}

/** The stored form of new errors, after the item's earlier ones. */
export function appendErrors(earlier: readonly ItemError[], added: readonly NewItemError[], now: Date): ItemError[] {
  return [
    ...earlier,
    ...added.map((error) => ({
      message: clipped(error.message, maxErrorMessageLength),
      ...(error.sourceId === undefined ? {} : { sourceId: clipped(error.sourceId, maxErrorSourceIdLength) }),
      at: (error.at ?? now).toISOString(),
    })),
  ];
}

/** The condition of an item `workerId` holds, in the given attempt when one is named. */
export function heldBy(target: { id: string; workerId: string; attempt?: number }): Record<string, unknown> {
  return {
    id: target.id,
    locked_by: target.workerId,
    status: 'InProgress',
    ...(target.attempt === undefined ? {} : { attempts: target.attempt }),
  };
}

/**
 * Locks the item if `workerId` holds it, lets `change` decide the new column values from what is
 * stored, and writes them; answers what `change` answered, or undefined when the item is not held.
 */
export async function updateHeldItem<T>(
  db: RuntimeDatabase,
  target: { id: string; workerId: string; attempt?: number },
  change: (held: HeldItem, trx: Knex.Transaction) => { values: Record<string, unknown>; answer: T },
): Promise<T | undefined> {
  const guard = heldBy(target);
  return writeTransaction(db, async (trx) => {
    const select = trx('queue_items').select('attempts', 'max_attempts', 'errors').where(guard);
    if (db.engine.rowLocks) select.forUpdate();
    const row = (await select.first()) as Record<string, unknown> | undefined;
    if (row === undefined) return undefined;
    const held = {
      attempts: Number(row.attempts),
      maxAttempts: Number(row.max_attempts),
      errors: (fromJsonColumn(row.errors) as ItemError[] | null) ?? [],
    };
    const { values, answer } = change(held, trx);
    const updated = await trx('queue_items').where(guard).update(values);
    return updated === 1 ? answer : undefined;
  });
}

/** Ends the worker's attempt as Complete or Failed (no retry); false when the worker no longer holds the item. */
export async function completeItem(db: RuntimeDatabase, result: AttemptResult & { status: 'Complete' | 'Failed' }): Promise<boolean> {
  const now = result.now ?? new Date();
  if ((result.errors ?? []).length === 0) {
    // Nothing to append to the stored errors, so nothing to read first: one guarded statement
    // instead of a transaction of four round trips — the common end of a run — shared with the
    // ends recorded at the same time (complete-together.ts).
    return completeTogether(db, {
      id: result.id,
      workerId: result.workerId,
      ...(result.attempt === undefined ? {} : { attempt: result.attempt }),
      status: result.status,
      finishedAt: now,
      ...(result.startedAt === undefined ? {} : { startedAt: result.startedAt }),
      ...(result.statistics === undefined ? {} : { statistics: result.statistics }),
    });
  }
  const answer = await updateHeldItem(db, result, (held) => ({
    values: {
      status: result.status,
      finished_at: toDatabaseTime(db.dialect, now),
      lease_until: null,
      ...(result.startedAt === undefined ? {} : { started_at: toDatabaseTime(db.dialect, result.startedAt) }),
      ...(result.statistics === undefined ? {} : { statistics: JSON.stringify(result.statistics) }),
      errors: JSON.stringify(appendErrors(held.errors, result.errors ?? [], now)),
    },
    answer: true,
  }));
  return answer ?? false;
}
