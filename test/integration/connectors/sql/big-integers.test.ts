/**
 * Integers past 2^53 in filters and matches, on every test database. Records carry such a value as
 * exact text (a double would round it); a filter or a match comparing a BIGINT column with it must
 * find the record it names, not its neighbour a double cannot tell apart: a sync's match once
 * updated another record, and a cursor past 9007199254761003 skipped 9007199254761004.
 * node-sqlite3 reads every integer as a double: on SQLite such a column is read as its text, or
 * records with keys past 2^53 came back rounded, paging by key read some twice and skipped others,
 * and a write matched by such a key updated the row of the rounded key.
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
      Generated: {
        table: 'big_generated',
        key: ['id'],
        fields: { id: { type: 'Integer', readOnly: true }, name: { type: 'String' } },
        groups: {
          tags: {
            table: 'big_generated_tags',
            foreignKey: 'gid',
            typeField: 'type',
            types: ['main'],
            fields: { label: { type: 'String' } },
          },
        },
      },
      Snowflake: {
        table: 'big_keys',
        key: ['id'],
        fields: { id: { type: 'Integer' }, name: { type: 'String' }, amount: { type: 'Number' } },
        groups: {
          tags: {
            table: 'big_key_tags',
            foreignKey: 'big_id',
            typeField: 'type',
            types: ['main'],
            fields: { label: { type: 'String' }, ref: { type: 'Integer' } },
          },
        },
      },
      // The same table, its integers declared as text (a 64-bit id kept as a String).
      SnowflakeText: {
        table: 'big_keys',
        key: ['id'],
        fields: { id: { type: 'String' }, amount: { type: 'String' } },
      },
    },
    queries: {},
  } as unknown as SystemDefinition;
}

// 2^53 and 2^53 + 4: a double holds them. 2^53 + 1 and 2^53 + 3 round to them.
const held = ['9007199254740992', '9007199254740996'];
// Keys a double cannot tell apart: 2^53 + 1 … 2^53 + 7.
const snowflakes = [
  '9007199254740993',
  '9007199254740994',
  '9007199254740995',
  '9007199254740996',
  '9007199254740997',
  '9007199254740998',
  '9007199254740999',
];

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
    await admin.schema.dropTableIfExists('big_key_tags');
    await admin.schema.dropTableIfExists('big_keys');
    await admin.schema.createTable('big_keys', (table) => {
      table.bigInteger('id').primary();
      table.string('name', 100);
      table.bigInteger('amount');
    });
    await admin.schema.createTable('big_key_tags', (table) => {
      table.bigInteger('big_id');
      table.string('type', 20);
      table.string('label', 100);
      table.bigInteger('ref');
    });
    await admin.schema.dropTableIfExists('big_generated_tags');
    await admin.schema.dropTableIfExists('big_generated');
    await admin.schema.createTable('big_generated', (table) => {
      table.bigIncrements('id');
      table.string('name', 100);
    });
    await admin.schema.createTable('big_generated_tags', (table) => {
      table.bigInteger('gid');
      table.string('type', 20);
      table.string('label', 100);
    });
    await admin('big_generated').insert({ id: '9007199254740992', name: 'before' });
    if (database().engine === 'postgres') await admin.raw(`SELECT setval(pg_get_serial_sequence('big_generated', 'id'), 9007199254740992)`);
    // Inserted in another order than the key's, so a read pages by the key, not by insertion.
    const shuffled = [3, 0, 6, 1, 5, 2, 4].map((index) => snowflakes[index]!);
    await admin('big_keys').insert(shuffled.map((id) => ({ id, name: `flake-${id.slice(-3)}`, amount: id })));
    await admin('big_key_tags').insert(shuffled.map((id) => ({ big_id: id, type: 'main', label: `tag-${id.slice(-3)}`, ref: id })));
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

  test('a String field over an integer column reads its exact digits', async () => {
    const records: RecordData[] = [];
    for await (const page of connection.read('SnowflakeText')) records.push(...page);
    assert.deepEqual(
      records.map((record) => [record.id, record.amount]),
      snowflakes.map((id) => [id, id]),
    );
  });

  test('records carry the values exactly, as text', async () => {
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

  test('a list mixing such a value with other numbers, and a fraction against an integer column, select what they equal', async () => {
    // PostgreSQL types a list as one: a BIGINT beside '1.5' or 1e20 once made the read fail.
    for (const other of [1.5, 1e20, 1e21, '0.5']) {
      assert.deepEqual(await read(`src_id in ('9007199254740993', #v#)`, other), [], `with ${other}`);
      assert.deepEqual(
        (await read(`src_id in ('9007199254740992', #v#)`, other)).map((record) => record.id),
        [1],
        `with ${other}`,
      );
    }
    assert.deepEqual(await read('src_id = #v#', 0.5), []);
    assert.deepEqual(await read('id = #v#', 1.5), []);
    assert.deepEqual(
      (await read('id in (#v#, 2)', 1.5)).map((record) => record.id),
      [2],
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

  test('records keyed past 2^53 are read once each, in key order, across pages, with their group entries', async () => {
    const records: RecordData[] = [];
    for await (const page of connection.read('Snowflake', { pageSize: 2 })) records.push(...page);
    assert.deepEqual(
      records.map((record) => [record.id, record.name, record.amount, record.tags]),
      // A Number is a number where a double holds it (2^53 + 2), an Integer past 2^53 is text.
      snowflakes.map((id) => [
        id,
        `flake-${id.slice(-3)}`,
        String(Number(id)) === id ? Number(id) : id,
        { main: { label: `tag-${id.slice(-3)}`, ref: id } },
      ]),
    );
    const byId: RecordData[] = [];
    for await (const page of connection.read('Snowflake', { id: { id: '9007199254740995' } })) byId.push(...page);
    assert.deepEqual(
      byId.map((record) => record.name),
      ['flake-995'],
    );
  });

  test('a write matched by a key past 2^53 updates that record, and a created one keeps its group entries under its own key', async () => {
    const outcomes = await connection.writeMany('Snowflake', [
      { values: { id: '9007199254740995', name: 'renamed-995' }, match: { id: '9007199254740995' } },
      { values: { id: '9007199254741001', name: 'flake-001' }, match: { id: '9007199254741001' } },
    ]);
    assert.deepEqual(
      outcomes.map((outcome) => (outcome instanceof Error ? outcome.message : outcome.action)),
      ['updated', 'created'],
    );
    const created = await connection.write('Snowflake', {
      values: { id: '9007199254741003', name: 'flake-003' },
      groups: { tags: { main: { label: 'tag-003', ref: '9007199254741003' } } },
    });
    assert.equal(created.action, 'created');
    assert.deepEqual(created.key, { id: '9007199254741003' });
    const rows = (await database()
      .admin('big_keys')
      .select(database().admin.raw('CAST(id AS CHAR(30)) AS id'), 'name')
      .orderBy('big_keys.id')) as Array<{ id: string; name: string }>;
    assert.deepEqual(
      rows.map((row) => `${row.id.trim()} ${row.name}`),
      [
        ...snowflakes.map((id) => `${id} ${id === '9007199254740995' ? 'renamed' : 'flake'}-${id.slice(-3)}`),
        '9007199254741001 flake-001',
        '9007199254741003 flake-003',
      ],
    );
    const tags = (await database()
      .admin('big_key_tags')
      .select(database().admin.raw('CAST(big_id AS CHAR(30)) AS id'), 'label')
      .where('label', 'tag-003')) as Array<{ id: string; label: string }>;
    assert.deepEqual(
      tags.map((row) => row.id.trim()),
      ['9007199254741003'],
    );
  });

  test('a key the database generates past 2^53 is answered exactly, and the group entries are stored under it', async () => {
    const created = await connection.write('Generated', { values: { name: 'after' }, groups: { tags: { main: { label: 'mine' } } } });
    assert.equal(created.action, 'created');
    assert.deepEqual(created.key, { id: '9007199254740993' });
    const records: RecordData[] = [];
    for await (const page of connection.read('Generated')) records.push(...page);
    assert.deepEqual(
      records.map((record) => [record.id, record.name, record.tags]),
      [
        ['9007199254740992', 'before', {}],
        ['9007199254740993', 'after', { main: { label: 'mine' } }],
      ],
    );
  });

  test('an Integer past 64 bits is refused, not stored rounded', async () => {
    await assert.rejects(
      connection.write('Snowflake', { values: { id: '99999999999999999999', name: 'too wide' } }),
      database().engine === 'sqlite'
        ? /Snowflake\.id: SQLite holds integers of 64 bits .* would store 99999999999999999999 rounded/
        : /does not fit/,
    );
    const rows = await database().admin('big_keys').where('name', 'too wide');
    assert.deepEqual(rows, []);
  });
});
