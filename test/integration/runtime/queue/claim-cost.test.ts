/**
 * A claim reads about as many rows as it claims, and an end of attempts as many as it ends,
 * whatever the backlog and whatever the planner
 * knows of the table: with 3,000 items waiting on a table never analyzed (the planner's view after
 * a migration, or after a quiet time), the claim statement walks the head of the line and finds
 * the rows it updates by their ids. Before migration 013 and `stillPending` (claim.ts), it walked
 * every waiting item twice per claim on PostgreSQL, and once on SQLite.
 *
 * PostgreSQL: the rows the daemon's claim and end functions read, from the connection's statistics
 * (in a transaction rolled back). SQLite, which counts no rows: how its plan finds the rows to
 * update. MariaDB claims in separate statements by a list of ids; it has no case here.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeEach, test } from 'node:test';
import type { Knex } from 'knex';
import type { RuntimeDatabase } from '../../../../runtime/database/open-database.js';
import { rawRows } from '../../../../runtime/database/raw-rows.js';
import { toDatabaseTime } from '../../../../runtime/database/timestamps.js';
import { claim, claimStatement, headSize, shortChoice, sqliteKeyByKeyChoice } from '../../../../runtime/queue/claim.js';
import { writeEnds } from '../../../../runtime/queue/complete-together.js';
import { at, describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';

const backlog = 3000;
const limit = 10;

/**
 * Rows of queue_items read so far on the transaction's connection: those a sequential scan read and
 * those an index scan fetched. PostgreSQL keeps them per connection until it reports them, a second
 * at most after the transaction ends, so a test reads them before and after what it measures.
 */
async function rowsRead(trx: Knex.Transaction): Promise<number> {
  const [reads] = rawRows(
    await trx.raw("SELECT seq_tup_read + idx_tup_fetch AS n FROM pg_stat_xact_user_tables WHERE relname = 'queue_items'"),
  );
  return Number(reads?.n ?? 0);
}

await describeEachRuntimeDatabase('the cost of a claim', (runtime) => {
  let db: RuntimeDatabase;
  beforeEach(async () => {
    db = runtime();
    await db.knex('queue_items').delete();
    // Written in batches of one statement each, as a burst of enqueues would be; no ANALYZE.
    const rows = Array.from({ length: backlog }, (_, i) => ({
      id: randomUUID(),
      process_id: 'busy-sync',
      start_type: 'AdHoc',
      status: 'Pending',
      attempts: 0,
      max_attempts: 1,
      run_after: toDatabaseTime(db.dialect, at(i / 1000)),
      created_at: toDatabaseTime(db.dialect, at(i / 1000)),
      errors: '[]',
      concurrency_key: 'process:busy-sync',
      concurrency_limit: 50,
    }));
    await db.knex.batchInsert('queue_items', rows, 200);
  });

  /** claimStatement's values, for a claim narrowed to `id`. */
  const values = (id: string) => {
    const now = toDatabaseTime(db.dialect, at(100));
    return ['w1', toDatabaseTime(db.dialect, at(160)), now, now, id, headSize(limit), now, id, limit, limit];
  };

  test('PostgreSQL: the daemon’s claim of 10 from 3,000 waiting reads a head of twice that, not the backlog', async (t) => {
    if (db.dialect !== 'postgres') return t.skip('PostgreSQL only');
    // The reads the claim adds to the connection's statistics, then rolled back: nothing is claimed.
    const trx = await db.knex.transaction();
    try {
      const before = await rowsRead(trx);
      const claimed = rawRows(
        await trx.raw('SELECT id FROM syncline_claim(?, ?, false, 60000, ?, ?)', ['w1', at(100), limit, headSize(limit)]),
      );
      assert.equal(claimed.length, limit);
      const read = (await rowsRead(trx)) - before;
      // A head twice the claim's size (migration 015), then the ten rows it updates, by id.
      assert.ok(read <= limit * 4, `the claim read ${read} rows to claim ${limit} of ${backlog} waiting`);
    } finally {
      await trx.rollback();
    }
  });

  /**
   * The busy sync's limit taken (its default is 1), and ten items of another sync waiting behind its
   * whole backlog, the fourth of a third sync: every claim of every daemon meets this while the
   * busy sync works off its backlog. Answers the ten.
   */
  async function fullKeyAhead(): Promise<Array<{ id: string }>> {
    await db.knex('queue_items').update({ concurrency_limit: 1 });
    const first = (await db.knex('queue_items').select('id').orderBy('run_after').first()) as { id: string };
    await db
      .knex('queue_items')
      .where('id', first.id)
      .update({ status: 'InProgress', locked_by: 'w0', attempts: 1, lease_until: toDatabaseTime(db.dialect, at(160)) });
    const behind = Array.from({ length: limit }, (_, i) => ({
      id: randomUUID(),
      process_id: 'other-sync',
      start_type: 'AdHoc',
      status: 'Pending',
      attempts: 0,
      max_attempts: 1,
      run_after: toDatabaseTime(db.dialect, at(50 + i)),
      created_at: toDatabaseTime(db.dialect, at(50 + i)),
      errors: '[]',
      concurrency_key: i === 3 ? 'process:third-sync' : 'process:other-sync',
      concurrency_limit: 1,
    }));
    await db.knex('queue_items').insert(behind);
    return behind;
  }

  test('PostgreSQL: with a key at its limit ahead of everything, the claim steps over its 3,000 waiting items, not through them', async (t) => {
    if (db.dialect !== 'postgres') return t.skip('PostgreSQL only');
    const behind = await fullKeyAhead();
    const trx = await db.knex.transaction();
    try {
      const before = await rowsRead(trx);
      const claimed = rawRows(
        await trx.raw('SELECT id, process_id FROM syncline_claim(?, ?, false, 60000, ?, ?)', ['w1', at(100), limit, headSize(limit)]),
      );
      // One item each of the two other keys, their limit being 1; none of the busy sync's.
      assert.deepEqual(claimed.map((row) => String(row.id)).sort(), [behind[0]!.id, behind[3]!.id].sort());
      const read = (await rowsRead(trx)) - before;
      assert.ok(read <= limit * 8, `the claim read ${read} rows to claim 2 behind ${backlog - 1} of a full key`);
    } finally {
      await trx.rollback();
    }
  });

  test('PostgreSQL: ending 10 of 3,000 running items reads those 10, not every running one', async (t) => {
    if (db.dialect !== 'postgres') return t.skip('PostgreSQL only');
    await db.knex('queue_items').update({
      status: 'InProgress',
      locked_by: 'w1',
      attempts: 1,
      started_at: toDatabaseTime(db.dialect, at(100)),
      lease_until: toDatabaseTime(db.dialect, at(160)),
    });
    const running = (await db.knex('queue_items').select('id').orderBy('id').limit(limit)) as Array<{ id: string }>;
    const ends = running.map((row) => ({
      id: String(row.id),
      workerId: 'w1',
      attempt: 1,
      status: 'Complete' as const,
      finishedAt: at(101),
    }));
    const trx = await db.knex.transaction();
    try {
      const before = await rowsRead(trx);
      const recorded = await writeEnds({ ...db, knex: trx }, ends);
      assert.equal(recorded.size, limit);
      const read = (await rowsRead(trx)) - before;
      assert.ok(read <= limit * 2, `the end read ${read} rows to end ${limit} of ${backlog} running`);
    } finally {
      await trx.rollback();
    }
  });

  test('SQLite: a direct run’s claim finds the rows it updates by their ids', async (t) => {
    if (db.dialect !== 'sqlite') return t.skip('SQLite only');
    const plan = rawRows(await db.knex.raw(`EXPLAIN QUERY PLAN ${claimStatement('sqlite', 1)}`, values('some-id')));
    const update = String(plan[0]?.detail);
    assert.match(update, /^SEARCH queue_items USING INDEX sqlite_autoindex_queue_items_1 \(id=\?\)$/);
  });

  test('SQLite: both steps of the claim read by index, never through the line, and each key’s line by its own', async (t) => {
    if (db.dialect !== 'sqlite') return t.skip('SQLite only');
    const now = toDatabaseTime(db.dialect, at(100));
    const steps = [
      [shortChoice('sqlite'), [now, 2 * limit, limit]],
      [sqliteKeyByKeyChoice(), [now, limit, now, limit, limit]],
    ] as const;
    for (const [query, bound] of steps) {
      const plan = rawRows(await db.knex.raw(`EXPLAIN QUERY PLAN ${query}`, [...bound])).map((row) => String(row.detail));
      assert.deepEqual(
        plan.filter((detail) => /^SCAN (queue_items|q|k|w)\b/.test(detail)),
        [],
        `no step scans the table:\n${plan.join('\n')}`,
      );
    }
    const [, keyByKey] = steps;
    const plan = rawRows(await db.knex.raw(`EXPLAIN QUERY PLAN ${keyByKey[0]}`, [...keyByKey[1]])).map((row) => String(row.detail));
    assert.ok(
      plan.includes('SEARCH k USING INDEX queue_items_concurrency (status=? AND concurrency_key=? AND run_after<?)'),
      plan.join('\n'),
    );
  });

  test('every engine: with a key at its limit ahead of everything, the claim takes what waits behind it', async () => {
    const behind = await fullKeyAhead();
    const claimed = await claim(db, { workerId: 'w1', limit, leaseMs: 60_000, now: at(100) });
    // One item each of the two other keys, their limit being 1; none of the busy sync's.
    assert.deepEqual(claimed.map((item) => item.id).sort(), [behind[0]!.id, behind[3]!.id].sort());
  });

  test('every engine: behind a full key, with more waiting keys than one statement reads key by key, the claim takes the oldest of them', async () => {
    const behind = await fullKeyAhead();
    // 150 more keys with an item each (MariaDB reads at most 100 key lines in one statement, then
    // falls back to the full head), the newest first in key order.
    const keyed = Array.from({ length: 150 }, (_, i) => ({
      id: randomUUID(),
      process_id: `sync-${i}`,
      start_type: 'AdHoc',
      status: 'Pending',
      attempts: 0,
      max_attempts: 1,
      run_after: toDatabaseTime(db.dialect, at(70 - i / 10)),
      created_at: toDatabaseTime(db.dialect, at(70 - i / 10)),
      errors: '[]',
      concurrency_key: `process:sync-${String(i).padStart(3, '0')}`,
      concurrency_limit: 1,
    }));
    await db.knex.batchInsert('queue_items', keyed, 50);
    const claimed = await claim(db, { workerId: 'w1', limit, leaseMs: 60_000, now: at(100) });
    // The first item of each key with room, oldest first: the other sync's and the third sync's
    // (at 50 s and 53 s), then the eight oldest of the 150 (at 55.1 s and on).
    const firsts = [behind[0]!, behind[3]!, ...[...keyed].reverse()];
    assert.deepEqual(
      claimed.map((item) => item.id),
      firsts.slice(0, limit).map((row) => row.id),
    );
  });

  test('every engine: past a full key, an older keyed item goes before newer unkeyed ones', async () => {
    await db.knex('queue_items').delete();
    const item = (id: string, seconds: number, key: string | null, status = 'Pending') => ({
      id,
      process_id: id,
      start_type: 'AdHoc',
      status,
      locked_by: status === 'Pending' ? null : 'w0',
      attempts: status === 'Pending' ? 0 : 1,
      max_attempts: 1,
      lease_until: status === 'Pending' ? null : toDatabaseTime(db.dialect, at(160)),
      run_after: toDatabaseTime(db.dialect, at(seconds)),
      created_at: toDatabaseTime(db.dialect, at(seconds)),
      errors: '[]',
      concurrency_key: key,
      concurrency_limit: key === null ? null : 1,
    });
    // A key at its limit with ten waiting (the first claim's short line holds only its items),
    // one item of another key behind them, and two unkeyed items behind that.
    await db
      .knex('queue_items')
      .insert([
        item(randomUUID(), 0, 'process:full', 'InProgress'),
        ...Array.from({ length: 10 }, (_, i) => item(randomUUID(), 1 + i, 'process:full')),
      ]);
    const keyed = randomUUID();
    const unkeyed = [randomUUID(), randomUUID()];
    await db.knex('queue_items').insert([item(keyed, 20, 'process:other'), item(unkeyed[0]!, 30, null), item(unkeyed[1]!, 31, null)]);
    const claimed = await claim(db, { workerId: 'w1', limit: 2, leaseMs: 60_000, now: at(100) });
    assert.deepEqual(
      claimed.map((row) => row.id),
      [keyed, unkeyed[0]],
    );
  });

  test('every engine: the claim takes the 10 oldest', async () => {
    const claimed = await claim(db, { workerId: 'w1', limit, leaseMs: 60_000, now: at(100) });
    const oldest = (await db.knex('queue_items').select('id').orderBy('run_after').limit(limit)) as Array<{ id: string }>;
    assert.deepEqual(
      claimed.map((item) => item.id),
      oldest.map((row) => String(row.id)),
    );
  });
});
