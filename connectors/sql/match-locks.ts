/**
 * Locks scoped to match values, for writes whose match no unique index can arbitrate (and for
 * batches, whose turns they order: write-transaction.ts says why): taken before the lookup, held
 * until the transaction ends, so two transactions writing records with the same match values (two
 * runs of a sync, two syncs into one table, two webhook calls) take turns, and the second one's
 * lookup finds what the first one created instead of creating it again.
 *
 * - The lock of a write is a bucket: its match fields and values hashed into one of
 *   `MATCH_LOCK_BUCKETS` per table. Different values may share a bucket (they then wait for each
 *   other needlessly); equal values always do. A transaction therefore holds at most that many
 *   locks per table, whatever the batch size — PostgreSQL's lock table is shared and small.
 * - "Equal" is the match's own equality (compare-column.ts): 7, '7' and '7.0' find the same
 *   number, true finds '1' in a text column, a Date column holds any instant of its day — or the
 *   column's collation's, which may ignore case, accents and trailing blanks in text.
 *   `lockToken` maps values to coarse classes so that any two that can match each other share a
 *   token (test/integration/connectors/sql/match-locks.test.ts checks it against the codec and matchesValue).
 * - Buckets are taken in ascending order, all at the start of the transaction, so two batches
 *   never wait for each other in a circle.
 * - Each wait is bounded by `LOCK_WAIT_SECONDS`; past it the write fails as `unavailable`.
 *
 * PostgreSQL: transaction-level advisory locks on (table oid, bucket), released by COMMIT or
 * ROLLBACK. MariaDB/MySQL: GET_LOCK, which belongs to the session, not the transaction: it is
 * taken on the transaction's own connection and released there after the transaction ends
 * (write-transaction.ts). SQLite needs none: its write transactions begin IMMEDIATE, holding the
 * database's single writer lock from before the lookup to the commit.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { FieldType } from '../../definitions/types.js';
import { toEpochMillis } from '../../definitions/expression/iso-dates.js';
import type { RecordData } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { booleanOf, numberOf } from './filter-operand.js';
import type { SqlObject } from './object-model.js';
import type { Dialect } from './sql-dialect.js';

/** Buckets per table: a 1,000-record page takes at most this many locks. */
export const MATCH_LOCK_BUCKETS = 256;
/** The longest wait for one lock before the write fails. */
export const LOCK_WAIT_SECONDS = 30;

/**
 * The class of values a match value can equal: numbers (and numeric or boolean text, and
 * booleans as 1/0) by their number, date-times by their instant, dates by their (UTC) day, other
 * text as it is.
 */
export function lockToken(type: FieldType, value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (type === 'Date' || type === 'DateTime') {
    const millis = toEpochMillis(value);
    // A Date column keeps the day: any instant of that day may have created the record.
    if (millis !== null) return type === 'Date' ? `d${new Date(millis).toISOString().slice(0, 10)}` : `t${millis}`;
  }
  if (typeof value === 'bigint') return `n${Number(value)}`;
  if (typeof value === 'number') return `n${value}`;
  if (typeof value === 'boolean') return value ? 'n1' : 'n0';
  if (typeof value === 'string') {
    const number = numberOf(value);
    if (number !== null) return `n${number}`;
    const flag = booleanOf(value);
    if (flag !== null) return flag ? 'n1' : 'n0';
    return `s${foldText(value)}`;
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'null' : `s${value.toISOString()}`;
  return `j${JSON.stringify(value)}`;
}

/**
 * Text as a collation that ignores case, accents and trailing blanks sees it (MariaDB's default
 * utf8mb4_general_ci, and many a PostgreSQL or SQLite column declared so): 'Ab', 'ab ' and 'áb'
 * find each other's records there, so they must share a lock. Where the column tells them apart
 * they only share a bucket, which costs a needless wait, never a doubled record.
 */
function foldText(text: string): string {
  // ASCII has no marks and is its own NFD: the cheap way gives the same text (most match values).
  if (ASCII.test(text)) return text.toLowerCase().trimEnd();
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trimEnd();
}

const ASCII = /^\p{ASCII}*$/u;

/** FNV-1a over the UTF-16 code units: the same in every process (no seed), and cheap per record. */
function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  // The low bits of a product depend only on the low bits of its factors: fold the high ones in,
  // as the bucket is taken from the low ones.
  return (hash ^ (hash >>> 16)) >>> 0;
}

/** The bucket of a write matching on `match` (field names of `object` → values). */
export function matchBucket(object: SqlObject, match: Readonly<RecordData>): number {
  const fields = Object.keys(match).sort();
  const tokens = fields.map((name) => lockToken(object.fields.get(name)?.type ?? 'String', match[name]));
  return hash32(JSON.stringify([fields, tokens])) % MATCH_LOCK_BUCKETS;
}

/** Where a table's locks live: its oid on PostgreSQL, `schema.table` on MariaDB (unique-keys.ts). */
export type LockScope = number | string;

/** The GET_LOCK name of a bucket: at most 64 characters, whatever the table's name. */
export function sessionLockName(scope: LockScope, bucket: number): string {
  return `syncline:${createHash('sha256').update(String(scope)).digest('hex').slice(0, 16)}:${bucket}`;
}

function lockTimeout(what: { systemId: string; objectName: string }, waitSeconds: number, cause?: unknown): ConnectorError {
  return new ConnectorError(
    'unavailable',
    `system '${what.systemId}': writing ${what.objectName} waited more than ${waitSeconds} s for another write of records with the same match values (another run, sync or webhook call writing ${what.objectName}); try again`,
    { cause, details: { system: what.systemId, reason: 'lock wait timeout' } },
  );
}

/**
 * Takes the locks of `buckets` (ascending, distinct) inside `trx`. On MariaDB they outlive the
 * transaction: the caller releases them on the same connection (`releaseSessionLocks`).
 */
export async function takeMatchLocks(
  trx: Knex.Transaction,
  dialect: Dialect,
  scope: LockScope,
  buckets: readonly number[],
  what: { systemId: string; objectName: string },
  waitSeconds = LOCK_WAIT_SECONDS,
): Promise<void> {
  if (buckets.length === 0 || dialect === 'sqlite') return;
  if (dialect === 'postgres') {
    // lock_timeout for the rest of this transaction only: the advisory locks, and the row locks
    // after them. unnest yields the array in order, so the locks are taken in that order.
    await trx.raw(`SELECT set_config('lock_timeout', ?, true)`, [`${waitSeconds}s`]);
    try {
      await trx.raw('SELECT pg_advisory_xact_lock(?::int4, b) FROM unnest(?::int4[]) AS u(b)', [Number(scope) | 0, [...buckets]]);
    } catch (error) {
      if ((error as { code?: unknown }).code === '55P03') throw lockTimeout(what, waitSeconds, error);
      throw error;
    }
    return;
  }
  // AND stops at the first lock not granted in time (0) or refused (NULL); the ones taken before
  // it are released with the rest.
  const names = buckets.map((bucket) => sessionLockName(scope, bucket));
  const [rows] = (await trx.raw(
    `SELECT (${names.map(() => 'GET_LOCK(?, ?)').join(' AND ')}) AS granted`,
    names.flatMap((name) => [name, waitSeconds]),
  )) as [Array<{ granted: number | null }>];
  if (Number(rows[0]?.granted) !== 1) throw lockTimeout(what, waitSeconds);
}

/** MariaDB/MySQL: releases every GET_LOCK of the session `connection` holds. */
export async function releaseSessionLocks(knex: Knex, connection: unknown): Promise<void> {
  await knex.raw('SELECT RELEASE_ALL_LOCKS()').connection(connection);
}
