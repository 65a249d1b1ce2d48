/**
 * Claim: up to `limit` due Pending items for one worker, oldest due first (run_after, then
 * created_at), within the concurrency limits the items carry. Each becomes InProgress, held by the
 * worker until `lease_until`, with one more attempt counted. No item is ever claimed by two
 * workers, and no concurrency key ever has more InProgress items than its limit — across every
 * process, because the limit is enforced here, in the database, not by any process's memory.
 *
 * Which items may be claimed — one query, the same on every engine:
 *
 *   WITH busy AS [MATERIALIZED] (SELECT concurrency_key AS busy_key, COUNT(*) AS running FROM queue_items
 *                  WHERE status = 'InProgress' AND concurrency_key IS NOT NULL
 *                  GROUP BY concurrency_key),
 *        head AS (SELECT q.…, COALESCE(busy.running, 0) AS running            -- the head of the
 *                   FROM queue_items q LEFT JOIN busy ON busy.busy_key = q.concurrency_key
 *                  WHERE q.status = 'Pending' AND q.run_after <= ?             -- line, keys at
 *                    AND q.concurrency_key IS NOT NULL                         -- their limit
 *                    AND COALESCE(busy.running, 0) < q.concurrency_limit       -- left out
 *                  ORDER BY q.run_after, q.created_at LIMIT ?)
 *   SELECT free.id, free.run_after, free.created_at FROM (
 *          SELECT id, run_after, created_at FROM queue_items              -- no limit: the first
 *           WHERE status = 'Pending' AND run_after <= ? AND concurrency_key IS NULL
 *           ORDER BY run_after, created_at LIMIT ?) AS free               -- `limit` in line
 *   UNION ALL
 *   SELECT ranked.id, ranked.run_after, ranked.created_at FROM (
 *          SELECT …, ROW_NUMBER() OVER (PARTITION BY concurrency_key
 *                                       ORDER BY run_after, created_at, id) AS place
 *            FROM head) AS ranked
 *    WHERE ranked.place + ranked.running <= ranked.concurrency_limit
 *   ORDER BY run_after, created_at
 *   LIMIT ?
 *
 * A key's first (limit − running) items in line qualify, the rest wait their turn. Reading that
 * count and acting on it must not overlap with another claim, or two claimers would each see a
 * free place and both take it; so claims take turns:
 *
 * - SQLite — in a writer transaction (BEGIN IMMEDIATE); SQLite has one writer at a time. A claim of
 *   given items is one statement:
 *     UPDATE queue_items
 *        SET status = 'InProgress', locked_by = ?, lease_until = ?, started_at = ?, attempts = attempts + 1
 *      WHERE (status = 'Pending') IS TRUE AND id IN (SELECT id FROM (…which items…) AS due)
 *     RETURNING *
 *   A claim of all due items chooses first, in one or two steps (shortChoice), then updates
 *   the chosen ids with the same UPDATE.
 * - PostgreSQL — the same UPDATE, choosing by `id = ANY(ARRAY(SELECT due.id FROM (…) AS due))`
 *   (see claimStatement; `IS TRUE`: see stillPending), in a transaction that first locks the
 *   claim row:
 *     SELECT name FROM queue_locks WHERE name = 'claim' FOR UPDATE
 *   In READ COMMITTED, the UPDATE's snapshot is taken after the lock is granted, so it sees every
 *   claim committed before it. The lock is held for two short statements. The daemon's claims
 *   (all due items, not given ones) run both in one call, `SELECT * FROM syncline_claim(…)`, the
 *   function of migration 013.
 * - MariaDB/MySQL — no UPDATE … RETURNING, and an UPDATE cannot read its own table in a subquery,
 *   so in one READ COMMITTED transaction (write-transaction.ts): the lock as on PostgreSQL, then
 *     SELECT …which items…
 *     UPDATE queue_items SET … WHERE status = 'Pending' AND id IN (…the ids…)
 *     SELECT * FROM queue_items WHERE id IN (…the ids…)
 *
 * The ranking reads only the head of the line (headSize), so a claim costs the same whatever the
 * backlog; only a key at its limit with a long backlog ahead of everything else is stepped over
 * row by row (by the claim index). That is the query above, which every claim of given items
 * runs. Claims of all due items (the daemons') read a short head of twice their size first and,
 * when that yields too few, each waiting key's own line by an index that leads with the key, so a
 * full key costs a few rows, not its backlog: PostgreSQL in its function (migrations 015 and 016
 * say why the choice is the same), SQLite and MariaDB with shortChoice and its second steps.
 *
 * `ids` narrows the claim to given items (a direct run claiming its own item when its key has
 * room); they are ranked among themselves, so a caller waiting in the request goes ahead of items
 * the daemons have not started yet — never past the limit.
 */
import type { Knex } from 'knex';
import type { RuntimeDatabase } from '../database/open-database.js';
import { rawRows } from '../database/raw-rows.js';
import { toDatabaseTime } from '../database/timestamps.js';
import { writeTransaction } from '../database/write-transaction.js';
import { fromRow, type QueueRow } from './queue-item.js';

export interface ClaimOptions {
  /** Who claims: a name unique to the worker process (host, pid, a random part). */
  workerId: string;
  /** Most items to claim at once. */
  limit: number;
  /** How long the claim holds without a heartbeat, in ms. */
  leaseMs: number;
  /** Only these items (all Pending items when absent). */
  ids?: readonly string[];
  now?: Date;
}

/**
 * How many due items with a key the ranking looks at, at most: the head of the line, leaving out
 * keys already at their limit. A claim takes at most `limit` items, so a head many times that
 * size holds them unless one key with little room left fills it; that key is then full after this
 * claim, and the next one looks past it.
 */
export function headSize(limit: number): number {
  return Math.max(100, limit * 10);
}

/**
 * PostgreSQL inlines a CTE used once, and with young statistics (a fresh or fast-changing table)
 * it then counts the running items of a key again for every Pending row it looks at: a claim with
 * 1,500 items waiting took 6 ms instead of 1.5. MATERIALIZED counts them once.
 */
function onceOnly(dialect: RuntimeDatabase['dialect']): string {
  return dialect === 'postgres' ? 'MATERIALIZED ' : '';
}

/** The CTE `busy`: how many items of each concurrency key are InProgress, counted once. */
export function busyKeys(dialect: RuntimeDatabase['dialect']): string {
  return `busy AS ${onceOnly(dialect)}(SELECT concurrency_key AS busy_key, COUNT(*) AS running FROM queue_items
                 WHERE status = 'InProgress' AND concurrency_key IS NOT NULL
                 GROUP BY concurrency_key)`;
}

/** ` AND <alias>id IN (?, …)` for a claim narrowed to `only` given items; nothing for a claim of all. */
function among(alias: string, only: number): string {
  return only === 0 ? '' : ` AND ${alias}id IN (${Array.from({ length: only }, () => '?').join(', ')})`;
}

/** The query of claimable ids, with `?` for its values (see `claimableValues`). */
export function claimableQuery(dialect: RuntimeDatabase['dialect'], only: number): string {
  return `
  WITH ${busyKeys(dialect)},
       head AS (SELECT q.id, q.run_after, q.created_at, q.concurrency_key, q.concurrency_limit, COALESCE(busy.running, 0) AS running
                  FROM queue_items q LEFT JOIN busy ON busy.busy_key = q.concurrency_key
                 WHERE q.status = 'Pending' AND q.run_after <= ? AND q.concurrency_key IS NOT NULL${among('q.', only)}
                   AND COALESCE(busy.running, 0) < q.concurrency_limit
                 ORDER BY q.run_after, q.created_at
                 LIMIT ?)
${claimRanking(only)}`;
}

/**
 * Of `head` (the items with a key that may qualify, each with its key's running count), each key's
 * first (limit − running) items in line; with the unkeyed items before it, the oldest `limit`.
 * Its `?` is `limit`.
 */
const rankedHead = `  SELECT ranked.id, ranked.run_after, ranked.created_at FROM (
         SELECT id, run_after, created_at, running, concurrency_limit,
                ROW_NUMBER() OVER (PARTITION BY concurrency_key ORDER BY run_after, created_at, id) AS place
           FROM head) AS ranked
   WHERE ranked.place + ranked.running <= ranked.concurrency_limit
  ORDER BY run_after, created_at
  LIMIT ?`;

/**
 * The part of the choice after `head` (the items with a key that may qualify, each with its key's
 * running count): the unkeyed items first in line, and of `head` each key's first
 * (limit − running) items; of both, the oldest `limit`. Its `?` are the time, the ids of `only`,
 * then `limit` twice. PostgreSQL's daemon claim builds its `head` in other ways (migration 016)
 * and ranks with this.
 */
export function claimRanking(only = 0): string {
  return `  SELECT free.id, free.run_after, free.created_at FROM (
         SELECT id, run_after, created_at FROM queue_items
          WHERE status = 'Pending' AND run_after <= ? AND concurrency_key IS NULL${among('', only)}
          ORDER BY run_after, created_at LIMIT ?) AS free
  UNION ALL
${rankedHead}`;
}

/**
 * The claim of every due item on SQLite and MariaDB, in two steps as PostgreSQL's daemon claim
 * (migration 016): this one reads the first `2 × limit` due items of any kind, in line, and
 * chooses among them as claimRanking does — the unkeyed ones, and each key's first
 * (limit − running). When that yields `limit` items, they are the claim: every item it did not
 * read is later in line than all it read. When it yields fewer, the second step reads each waiting
 * key's own first `limit` due items, the keys found one index probe each (sqliteKeyByKeyChoice; on
 * MariaDB, which takes no LIMIT in a subquery of IN, waitingKeys then keyLinesChoice), and ranks
 * them with claimRanking. A key at its limit (a sync's default is 1) then costs a few rows instead
 * of its whole backlog, which the full head read once per claim: with 10,000 waiting, 5 ms on
 * SQLite and 22 ms on MariaDB, so the backlog took time quadratic in its length to work off.
 * Values: the time, `2 × limit`, `limit`.
 */
export function shortChoice(dialect: RuntimeDatabase['dialect']): string {
  return `
  WITH ${busyKeys(dialect)},
       line AS (SELECT q.id, q.run_after, q.created_at, q.concurrency_key, q.concurrency_limit
                  FROM queue_items q
                 WHERE q.status = 'Pending' AND q.run_after <= ?
                 ORDER BY q.run_after, q.created_at
                 LIMIT ?),
       head AS (SELECT line.id, line.run_after, line.created_at, line.concurrency_key, line.concurrency_limit, COALESCE(busy.running, 0) AS running
                  FROM line LEFT JOIN busy ON busy.busy_key = line.concurrency_key
                 WHERE line.concurrency_key IS NOT NULL AND COALESCE(busy.running, 0) < line.concurrency_limit)
  SELECT free.id, free.run_after, free.created_at FROM line AS free WHERE free.concurrency_key IS NULL
  UNION ALL
${rankedHead}`;
}

/** The keys with waiting items, one index probe each, in key order. */
const waitingKeysCte = `waiting_keys (waiting_key) AS (
         SELECT (SELECT w.concurrency_key FROM queue_items w
                  WHERE w.status = 'Pending' AND w.concurrency_key IS NOT NULL
                  ORDER BY w.concurrency_key LIMIT 1)
         UNION ALL
         SELECT (SELECT w.concurrency_key FROM queue_items w
                  WHERE w.status = 'Pending' AND w.concurrency_key > waiting_keys.waiting_key
                  ORDER BY w.concurrency_key LIMIT 1)
           FROM waiting_keys WHERE waiting_keys.waiting_key IS NOT NULL)`;

/** The second step of shortChoice on SQLite, key by key. Values: the time and `limit`; then claimRanking's. */
export function sqliteKeyByKeyChoice(): string {
  return `
  WITH RECURSIVE ${busyKeys('sqlite')},
       ${waitingKeysCte},
       head AS (SELECT q.id, q.run_after, q.created_at, q.concurrency_key, q.concurrency_limit, COALESCE(busy.running, 0) AS running
                  FROM waiting_keys
                  JOIN queue_items q ON q.id IN (SELECT k.id FROM queue_items k
                                                  WHERE k.status = 'Pending' AND k.concurrency_key = waiting_keys.waiting_key AND k.run_after <= ?
                                                  ORDER BY k.run_after, k.created_at
                                                  LIMIT ?)
                  LEFT JOIN busy ON busy.busy_key = q.concurrency_key
                 WHERE COALESCE(busy.running, 0) < q.concurrency_limit)
${claimRanking()}`;
}

/**
 * MariaDB: the keys with waiting items (for keyLinesChoice), and null for the unkeyed ones. In
 * this form, the status named among the columns, MariaDB reads one index entry per key (a loose
 * scan, "Using index for group-by"); the recursive probes of SQLite's took 8 ms with 20,000
 * waiting, and so did a DISTINCT of the key alone.
 */
export const waitingKeys = `SELECT DISTINCT status, concurrency_key AS waiting_key FROM queue_items WHERE status = 'Pending'`;

/**
 * Most keys keyLinesChoice reads in one statement, a derived table each; past that, MariaDB's
 * claim reads the full head (claimableQuery) as before.
 */
export const keyLinesAtMost = 100;

/**
 * MariaDB's second step: the first `limit` due items of each of `keys` keys, each key's read on
 * its own by (status, concurrency_key, run_after, created_at). Values: per key its name, the time
 * and `limit`; then claimRanking's.
 */
export function keyLinesChoice(keys: number): string {
  const line = (i: number) => `SELECT * FROM (SELECT id, run_after, created_at, concurrency_key, concurrency_limit FROM queue_items
                  WHERE status = 'Pending' AND concurrency_key = ? AND run_after <= ?
                  ORDER BY run_after, created_at LIMIT ?) AS key_${i}`;
  return `
  WITH ${busyKeys('mysql')},
       key_lines AS (${Array.from({ length: keys }, (_, i) => line(i)).join('\n         UNION ALL ')}),
       head AS (SELECT key_lines.id, key_lines.run_after, key_lines.created_at, key_lines.concurrency_key, key_lines.concurrency_limit,
                       COALESCE(busy.running, 0) AS running
                  FROM key_lines LEFT JOIN busy ON busy.busy_key = key_lines.concurrency_key
                 WHERE COALESCE(busy.running, 0) < key_lines.concurrency_limit)
${claimRanking()}`;
}

/** The choice of every due item on SQLite and MariaDB, in the two steps of shortChoice; answers the chosen ids. */
async function choiceOfAll(db: RuntimeDatabase, executor: Knex, now: Knex.Value, limit: number): Promise<string[]> {
  const ranking = [now, limit, limit];
  const ids = (rows: ReadonlyArray<Record<string, unknown>>) => rows.map((row) => String(row.id));
  const short = rawRows(await executor.raw(shortChoice(db.dialect), [now, 2 * limit, limit]));
  if (short.length >= limit) return ids(short);
  if (db.dialect === 'sqlite') return ids(rawRows(await executor.raw(sqliteKeyByKeyChoice(), [now, limit, ...ranking])));
  const keys = rawRows(await executor.raw(waitingKeys))
    .filter((row) => row.waiting_key !== null)
    .map((row) => String(row.waiting_key));
  if (keys.length === 0) return ids(short);
  if (keys.length > keyLinesAtMost) return ids(rawRows(await executor.raw(claimableQuery(db.dialect, 0), claimableValues(now, limit, []))));
  return ids(rawRows(await executor.raw(keyLinesChoice(keys.length), [...keys.flatMap((key) => [key, now, limit]), ...ranking])));
}

function claimableValues(now: Knex.Value, limit: number, ids: readonly string[]): Knex.Value[] {
  return [now, ...ids, headSize(limit), now, ...ids, limit, limit];
}

const setClaimed = `status = 'InProgress', locked_by = ?, lease_until = ?, started_at = ?, attempts = attempts + 1`;

/**
 * SQLite and PostgreSQL: choose and claim in one statement (the daemon's, on PostgreSQL, inside
 * the function of migration 013, `?` named). On PostgreSQL the chosen ids are
 * gathered first, into an array (an init plan, run once): with `id IN (subquery)` the planner may
 * scan every Pending row and run the whole choice again for each one — it does so whenever the
 * table's statistics are young or say few rows — which makes a claim cost the backlog's size
 * instead of the claim's.
 */
export function claimStatement(dialect: RuntimeDatabase['dialect'], only: number): string {
  const chosen =
    dialect === 'postgres'
      ? `id = ANY(ARRAY(SELECT due.id FROM (${claimableQuery(dialect, only)}) AS due))`
      : `id IN (SELECT id FROM (${claimableQuery(dialect, only)}) AS due)`;
  return `
  UPDATE queue_items SET ${setClaimed}
   WHERE ${stillPending} AND ${chosen}
  RETURNING *`;
}

/**
 * The UPDATE's own test that a chosen item is still Pending (a cancel may have come between the
 * choice and the update), written so that no index can serve it: without statistics (SQLite
 * keeps none unless told to ANALYZE) or with young ones that say there are hardly any Pending
 * rows (PostgreSQL, after a quiet time), the planners found the rows to update by walking every
 * Pending entry of a status index instead of by their ids, which made a claim cost the backlog.
 * `IS TRUE` changes nothing else, status being NOT NULL.
 */
const stillPending = "(status = 'Pending') IS TRUE";

/** Waits for the claim lock of PostgreSQL and MariaDB (see the top of this file); held until the transaction ends. */
export async function lockClaims(db: RuntimeDatabase, trx: Knex): Promise<void> {
  if (db.engine.rowLocks) await trx.raw(`SELECT name FROM queue_locks WHERE name = 'claim' FOR UPDATE`);
}

interface ClaimValues {
  workerId: string;
  leaseUntil: Knex.Value;
  now: Knex.Value;
  limit: number;
  ids: readonly string[];
}

/** The claim itself, on `executor`; on PostgreSQL and MariaDB inside a transaction holding the claim lock. */
async function claimOn(db: RuntimeDatabase, executor: Knex, values: ClaimValues): Promise<Array<Record<string, unknown>>> {
  const { workerId, leaseUntil, now, limit, ids } = values;
  if (db.dialect === 'sqlite' && ids.length === 0) {
    const chosen = await choiceOfAll(db, executor, now, limit);
    if (chosen.length === 0) return [];
    return rawRows(
      await executor.raw(
        `UPDATE queue_items SET ${setClaimed} WHERE ${stillPending} AND id IN (${chosen.map(() => '?').join(', ')}) RETURNING *`,
        [workerId, leaseUntil, now, ...chosen],
      ),
    );
  }
  if (db.engine.returning) {
    return rawRows(
      await executor.raw(claimStatement(db.dialect, ids.length), [workerId, leaseUntil, now, ...claimableValues(now, limit, ids)]),
    );
  }
  const chosen =
    ids.length === 0
      ? await choiceOfAll(db, executor, now, limit)
      : rawRows(await executor.raw(claimableQuery(db.dialect, ids.length), claimableValues(now, limit, ids))).map((row) => String(row.id));
  if (chosen.length === 0) return [];
  await executor('queue_items')
    .where('status', 'Pending')
    .whereIn('id', chosen)
    .update({
      status: 'InProgress',
      locked_by: workerId,
      lease_until: leaseUntil,
      started_at: now,
      attempts: executor.raw('attempts + 1'),
    });
  return (await executor('queue_items').whereIn('id', chosen).andWhere({ status: 'InProgress', locked_by: workerId })) as Array<
    Record<string, unknown>
  >;
}

function checkOptions(options: ClaimOptions): void {
  if (!Number.isInteger(options.limit) || options.limit < 1)
    throw new RangeError(`claim: limit must be a whole number of at least 1, not ${options.limit}`);
  if (!(options.leaseMs > 0)) throw new RangeError(`claim: leaseMs must be positive, not ${options.leaseMs}`);
}

function claimValues(db: RuntimeDatabase, options: ClaimOptions): ClaimValues {
  const nowDate = options.now ?? new Date();
  return {
    workerId: options.workerId,
    now: toDatabaseTime(db.dialect, nowDate),
    leaseUntil: toDatabaseTime(db.dialect, new Date(nowDate.getTime() + options.leaseMs)),
    limit: options.limit,
    ids: options.ids ?? [],
  };
}

function inLine(rows: ReadonlyArray<Record<string, unknown>>): QueueRow[] {
  return rows.map(fromRow).sort((a, b) => a.runAfter.getTime() - b.runAfter.getTime() || a.createdAt.getTime() - b.createdAt.getTime());
}

/** Claims due items for `workerId`; answers them in claim order (possibly none). */
export async function claim(db: RuntimeDatabase, options: ClaimOptions): Promise<QueueRow[]> {
  checkOptions(options);
  if (options.ids !== undefined && options.ids.length === 0) return [];
  if (db.dialect === 'postgres' && options.ids === undefined) {
    // One statement: the function takes the lock, then claims (migration 013), its time moved on
    // by its wait for the lock.
    return inLine(
      rawRows(
        await db.knex.raw('SELECT * FROM syncline_claim(?, ?, ?, ?, ?, ?)', [
          options.workerId,
          options.now ?? new Date(),
          options.now === undefined,
          Math.ceil(options.leaseMs),
          options.limit,
          headSize(options.limit),
        ]),
      ),
    );
  }
  // The time is taken once the claim may go ahead (the claim lock held; on SQLite, the writer lock
  // of BEGIN IMMEDIATE): an item whose end was recorded while this claim waited ended before it,
  // so a run let in by that end never starts before it, in StartedDate as in fact.
  const rows = await writeTransaction(db, async (trx) => {
    await lockClaims(db, trx);
    return claimOn(db, trx, claimValues(db, options));
  });
  return inLine(rows);
}

/**
 * The same claim inside the caller's write transaction, which already holds the claim lock
 * (`lockClaims`): for inserting an item and claiming it in one step (start-item.ts).
 */
export async function claimWithin(db: RuntimeDatabase, trx: Knex.Transaction, options: ClaimOptions): Promise<QueueRow[]> {
  checkOptions(options);
  if (options.ids !== undefined && options.ids.length === 0) return [];
  return inLine(await claimOn(db, trx, claimValues(db, options)));
}
