/**
 * Integers past 2^53 in filters and matches, on every test database. Records carry such a value as
 * exact text (a double would round it); a filter or a match comparing a BIGINT column with it must
 * find the record it names, not its neighbour a double cannot tell apart: a sync's match once
 * updated another record, and a cursor past 9007199254761003 skipped 9007199254761004.
 * (node-sqlite3 reads every integer as a double, so on SQLite the values read back are rounded;
 * what is stored, filtered and matched is exact there too.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Connection, RecordData } from '../../../../connectors/connection.js';
import * as sqlConnector from '../../../../connectors/sql/index.js';
import { parseExpression } from '../../../../definitions/expression/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import { describeEachDatabase, type TestDatabase } from '../../../support/databases.js';

function system(database: TestDatabase): SystemDefinition {
  return {
    kind: 'System',
    id: 'ledger',
    connector: 'sql',
    connection: database.connection,
    objects: {
      Entry: {
        table: 'big_entries',
        key: ['id'],
        fields: { id: { type: 'Integer' }, src_id: { type: 'Integer' }, name: { type: 'String' } },
      },
    },
    queries: {},
  } as unknown as SystemDefinition;
}

// 2^53 and 2^53 + 4: a double holds them. 2^53 + 1 and 2^53 + 3 round to them.
const held = ['9007199254740992', '9007199254740996'];

await describeEachDatabase('integers past 2^53 in filters and matches', (database) => {
  let connection: Connection;

  before(async () => {
    const { admin } = database();
    await admin.schema.dropTableIfExists('big_entries');
    await admin.schema.createTable('big_entries', (table) => {
      table.integer('id').primary();
      table.bigInteger('src_id');
      table.string('name', 100);
    });
    await admin('big_entries').insert(held.map((src, index) => ({ id: index + 1, src_id: src, name: `target-${src.slice(-3)}` })));
    connection = sqlConnector.createConnection(system(database()), { baseDirectory: database().baseDirectory });
  });
  after(async () => {
    await connection?.close();
  });

  async function read(filter: string, value: unknown): Promise<RecordData[]> {
    const records: RecordData[] = [];
    const request = { filter: parseExpression(filter), placeholders: (path: readonly string[]) => (path[0] === 'v' ? value : undefined) };
    for await (const page of connection.read('Entry', request)) records.push(...page);
    return records;
  }

  /** The values read back: exact text, except on SQLite (see above). */
  const spelled = (values: unknown[]): string[] => values.map(String);

  test('records carry the values exactly, as text (PostgreSQL, MariaDB)', async (t) => {
    if (database().engine === 'sqlite') {
      t.skip('node-sqlite3 reads integers as doubles');
      return;
    }
    const records = await read('id > 0', null);
    assert.deepEqual(
      records.map((record) => record.src_id),
      held,
    );
  });

  test('= finds only the record holding the value, not one a double rounds it to', async () => {
    assert.deepEqual(await read('src_id = #v#', '9007199254740993'), []);
    assert.deepEqual(await read('src_id = #v#', 9007199254740993n), []);
    assert.deepEqual(
      (await read('src_id = #v#', '9007199254740992')).map((record) => record.id),
      [1],
    );
  });

  test('> from a mark reads the next value, which a double would have made the bound', async () => {
    // '9007199254740995' as a double is 9007199254740996: `> 9007199254740996` found nothing.
    assert.deepEqual(spelled((await read('src_id > #v#', '9007199254740995')).map((record) => record.src_id)), ['9007199254740996']);
    assert.deepEqual(spelled((await read('src_id >= #v#', '9007199254740993')).map((record) => record.src_id)), ['9007199254740996']);
  });

  test('a write matching on the value creates a record instead of updating its neighbour', async () => {
    const outcomes = await connection.writeMany('Entry', [
      { values: { id: 3, src_id: '9007199254740993', name: 'src-993' }, match: { src_id: '9007199254740993' } },
      { values: { id: 4, src_id: '9007199254740995', name: 'src-995' }, match: { src_id: '9007199254740995' } },
    ]);
    assert.deepEqual(
      outcomes.map((outcome) => (outcome instanceof Error ? outcome.message : outcome.action)),
      ['created', 'created'],
    );
    const single = await connection.write('Entry', {
      values: { id: 5, src_id: '9007199254740997', name: 'src-997' },
      match: { src_id: '9007199254740997' },
    });
    assert.equal(single.action, 'created');
    const stored = (await database()
      .admin('big_entries')
      .select(database().admin.raw('CAST(src_id AS CHAR(30)) AS src'), 'name')) as Array<{ src: string; name: string }>;
    const names = Object.fromEntries(stored.map((row) => [row.src.trim(), row.name]));
    assert.deepEqual(names, {
      '9007199254740992': 'target-992',
      '9007199254740993': 'src-993',
      '9007199254740995': 'src-995',
      '9007199254740996': 'target-996',
      '9007199254740997': 'src-997',
    });
  });
});
