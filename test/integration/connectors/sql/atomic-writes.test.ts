/**
 * The sql connector's writes are atomic per match key on every database: writes with the same
 * match values running at the same moment — on two connections, as two processes would — create
 * one record between them, and the others find it and update it (or leave it, `onMatch: 'skip'`),
 * with a match column that has a unique index (the index arbitrates) and one that has none (the
 * writes lock their match values). Batches overlapping in opposite orders neither double records
 * nor deadlock. A write waits for a lock on its match values and then finds what the holder
 * committed; a lock held too long ends the wait with a clear error.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import type { Knex } from 'knex';
import type { Connection, WriteRequest, WriteResult } from '../../../../connectors/connection.js';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import * as sqlConnector from '../../../../connectors/sql/index.js';
import { matchBucket, sessionLockName, takeMatchLocks } from '../../../../connectors/sql/match-locks.js';
import { buildObjects } from '../../../../connectors/sql/object-model.js';
import { readTableFacts } from '../../../../connectors/sql/unique-keys.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import { describeEachDatabase, type TestDatabase } from '../../../support/databases.js';

/** `people_plain`: ext indexed, not unique; `people_unique`: ext unique. Both keyed by a generated id. */
function peopleSystem(database: TestDatabase): SystemDefinition {
  const fields = { id: { type: 'Integer', readOnly: true }, ext: { type: 'String', required: true }, name: { type: 'String' } };
  const batchFields = { ext: { type: 'String', required: true }, name: { type: 'String' } };
  return {
    kind: 'System',
    id: 'people',
    connector: 'sql',
    connection: database.connection,
    objects: {
      Plain: { table: 'people_plain', key: ['id'], fields },
      Unique: { table: 'people_unique', key: ['id'], fields },
      // The key is the match field and given with each create: multi-row INSERTs.
      BatchPlain: { table: 'batch_plain', key: ['ext'], fields: batchFields },
      BatchUnique: { table: 'batch_unique', key: ['ext'], fields: batchFields },
    },
    queries: {},
  } as unknown as SystemDefinition;
}

const writers = 12;

await describeEachDatabase('sql writes atomic per match key', (database) => {
  let first: Connection;
  let second: Connection;
  const admin = (): Knex => database().admin;

  before(async () => {
    for (const [table, unique] of [
      ['people_plain', false],
      ['people_unique', true],
    ] as const) {
      await admin().schema.createTable(table, (t) => {
        t.increments('id');
        const ext = t.string('ext', 40).notNullable();
        if (unique) ext.unique();
        else ext.index();
        t.string('name', 100);
      });
    }
    await admin().schema.createTable('batch_plain', (t) => {
      t.string('ext', 40).notNullable().index();
      t.string('name', 100);
    });
    await admin().schema.createTable('batch_unique', (t) => {
      t.string('ext', 40).primary();
      t.string('name', 100);
    });
    const context = { baseDirectory: database().baseDirectory };
    first = sqlConnector.createConnection(peopleSystem(database()), context);
    second = sqlConnector.createConnection(peopleSystem(database()), context);
  });

  after(async () => {
    await Promise.all([first?.close(), second?.close()]);
  });

  beforeEach(async () => {
    for (const table of ['people_plain', 'people_unique', 'batch_plain', 'batch_unique']) await admin()(table).delete();
  });

  /** `writers` writes of one record at once, alternating between the two connections. */
  async function together(object: string, request: (n: number) => WriteRequest): Promise<WriteResult[]> {
    return Promise.all(Array.from({ length: writers }, (_, n) => (n % 2 === 0 ? first : second).write(object, request(n))));
  }

  async function rows(table: string, ext: string): Promise<Array<{ id: number; name: string }>> {
    return (await admin()(table).where({ ext }).select('id', 'name')) as Array<{ id: number; name: string }>;
  }

  for (const [object, table, how] of [
    ['Plain', 'people_plain', 'no unique index'],
    ['Unique', 'people_unique', 'a unique index'],
  ] as const) {
    it(`${how}: ${writers} writes of one new record at once create it once and update it ${writers - 1} times`, async () => {
      const results = await together(object, (n) => ({ values: { name: `writer ${n}` }, match: { ext: 'A-1' } }));
      const stored = await rows(table, 'A-1');
      assert.equal(stored.length, 1, `one record, not ${stored.length}`);
      assert.deepEqual(results.map((result) => result.action).sort(), ['created', ...Array(writers - 1).fill('updated')]);
      for (const result of results) assert.deepEqual(result.key, { id: Number(stored[0]!.id) });
    });

    it(`${how}: with onMatch skip, the ${writers - 1} writes that come second leave the record as the first made it`, async () => {
      const results = await together(object, (n) => ({ values: { name: `writer ${n}` }, match: { ext: 'B-1' }, onMatch: 'skip' }));
      const stored = await rows(table, 'B-1');
      assert.equal(stored.length, 1, `one record, not ${stored.length}`);
      assert.deepEqual(results.map((result) => result.action).sort(), ['created', ...Array(writers - 1).fill('skipped')]);
      assert.equal(stored[0]!.name, `writer ${results.findIndex((result) => result.action === 'created')}`);
    });
  }

  for (const [object, table, how] of [
    ['BatchPlain', 'batch_plain', 'no unique index'],
    ['BatchUnique', 'batch_unique', 'a unique key'],
  ] as const) {
    it(`${how}: four batches of 600 overlapping in opposite orders give one record per key, one create each`, {
      timeout: 120_000,
    }, async () => {
      const batch = (from: number, descending: boolean): WriteRequest[] => {
        const numbers = Array.from({ length: 600 }, (_, n) => from + n);
        if (descending) numbers.reverse();
        return numbers.map((n) => ({
          values: { ext: `K-${String(n).padStart(5, '0')}`, name: `from ${from}` },
          match: { ext: `K-${String(n).padStart(5, '0')}` },
        }));
      };
      const answers = await Promise.all([
        first.writeMany(object, batch(0, false)),
        second.writeMany(object, batch(0, true)),
        first.writeMany(object, batch(300, true)),
        second.writeMany(object, batch(300, false)),
      ]);
      const failures = answers.flat().filter((answer): answer is ConnectorError => answer instanceof ConnectorError);
      assert.deepEqual(
        failures.map((failure) => failure.message),
        [],
      );
      const created = answers.flat().filter((answer) => (answer as WriteResult).action === 'created').length;
      const [totals] = (await admin()(table).count({ rows: '*' }).countDistinct({ keys: 'ext' })) as Array<{
        rows: number | string;
        keys: number | string;
      }>;
      assert.deepEqual({ rows: Number(totals!.rows), keys: Number(totals!.keys), created }, { rows: 900, keys: 900, created: 900 });
    });
  }

  /** Holds the lock the writes of `ext` on people_plain take, on a session of its own, until `release`. */
  async function holdLock(ext: string): Promise<{ insert(name: string): Promise<void>; release(): Promise<void> }> {
    const { engine } = database();
    const connection: unknown = await admin().client.acquireConnection();
    const run = (sql: string, bindings: unknown[] = []) =>
      admin()
        .raw(sql, bindings as Knex.RawBinding[])
        .connection(connection);
    // SQLite's lock is the single writer lock: a write transaction of another connection.
    if (engine === 'sqlite') await run('BEGIN IMMEDIATE');
    else {
      const facts = (await readTableFacts(admin(), engine === 'postgres' ? 'postgres' : 'mysql', 'people_plain'))!;
      const bucket = matchBucket(buildObjects(peopleSystem(database())).get('Plain')!, { ext });
      if (engine === 'postgres') await run('SELECT pg_advisory_lock(?::int4, ?::int4)', [Number(facts.lockScope) | 0, bucket]);
      else await run('SELECT GET_LOCK(?, 0)', [sessionLockName(facts.lockScope, bucket)]);
    }
    return {
      insert: async (name) => void (await run('INSERT INTO people_plain (ext, name) VALUES (?, ?)', [ext, name])),
      async release() {
        await run(
          engine === 'sqlite' ? 'COMMIT' : engine === 'postgres' ? 'SELECT pg_advisory_unlock_all()' : 'SELECT RELEASE_ALL_LOCKS()',
        );
        await admin().client.releaseConnection(connection);
      },
    };
  }

  it('a write waits for the lock on its match values, then finds the record committed meanwhile', async () => {
    const holder = await holdLock('C-1');
    let settled = false;
    const writing = first.write('Plain', { values: { name: 'second' }, match: { ext: 'C-1' } }).finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(settled, false, 'the write waits while the lock is held');
    await holder.insert('first');
    await holder.release();
    const written = await writing;
    const stored = await rows('people_plain', 'C-1');
    assert.equal(stored.length, 1);
    assert.deepEqual(written, { action: 'updated', key: { id: Number(stored[0]!.id) } });
    assert.equal(stored[0]!.name, 'second');
    if (database().engine === 'mariadb') {
      // The lock went with the transaction: no pooled session keeps it.
      const object = buildObjects(peopleSystem(database())).get('Plain')!;
      const facts = (await readTableFacts(admin(), 'mysql', 'people_plain'))!;
      const [used] = (await admin().raw('SELECT IS_USED_LOCK(?) AS holder', [
        sessionLockName(facts.lockScope, matchBucket(object, { ext: 'C-1' })),
      ])) as [Array<{ holder: number | null }>];
      assert.equal(used[0]!.holder, null);
    }
  });

  it('a lock held past the wait ends in a clear error, not a hang', async (t) => {
    const { engine } = database();
    if (engine === 'sqlite') return t.skip("SQLite's writer lock waits as long (busy timeout), then answers 'the database is locked'");
    const holder = await holdLock('D-1');
    try {
      const object = buildObjects(peopleSystem(database())).get('Plain')!;
      const facts = (await readTableFacts(admin(), engine === 'postgres' ? 'postgres' : 'mysql', 'people_plain'))!;
      await assert.rejects(
        admin().transaction((trx) =>
          takeMatchLocks(
            trx,
            engine === 'postgres' ? 'postgres' : 'mysql',
            facts.lockScope,
            [matchBucket(object, { ext: 'D-1' })],
            { systemId: 'people', objectName: 'Plain' },
            1,
          ),
        ),
        (error: unknown) => {
          assert.ok(error instanceof ConnectorError);
          assert.equal(error.code, 'unavailable');
          assert.equal(
            error.message,
            "system 'people': writing Plain waited more than 1 s for another write of records with the same match values (another run, sync or webhook call writing Plain); try again",
          );
          return true;
        },
      );
    } finally {
      await holder.release();
    }
  });
});
