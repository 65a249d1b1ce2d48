/**
 * Reads in the order of a range field (ReadRequest.rangeField, a sync's cursor run), keyset-paged
 * by that field then the key (connectors/sql/seek-order.ts), on every test database: across pages
 * much smaller than the runs of equal timestamps, every record under the filter comes exactly
 * once, in the field's order — also where PostgreSQL and MariaDB hold microseconds that records do
 * not carry, where SQLite holds date-times in other spellings, and where the field is NULL.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Connection, ReadRequest, RecordData } from '../../../../connectors/connection.js';
import * as sqlConnector from '../../../../connectors/sql/index.js';
import { parseExpression } from '../../../../definitions/expression/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import { describeEachDatabase, type TestDatabase } from '../../../support/databases.js';

function system(database: TestDatabase): SystemDefinition {
  return {
    kind: 'System',
    id: 'crm',
    connector: 'sql',
    connection: database.connection,
    objects: {
      Change: {
        table: 'changes',
        key: ['id'],
        fields: { id: { type: 'Integer' }, name: { type: 'String' }, changed_at: { type: 'DateTime' }, version: { type: 'Integer' } },
      },
    },
    queries: {},
  } as unknown as SystemDefinition;
}

const base = Date.parse('2024-03-01T08:00:00.000Z');
const iso = (minutes: number): string => new Date(base + minutes * 60_000).toISOString();

/** Minute of each id's change: runs of seven equal timestamps, ids not in timestamp order. */
const minuteOf = (id: number): number => ((id * 11) % 35) >> 3;

interface Row {
  id: number;
  name: string;
  changed_at: string | null;
  version: number | null;
}

/** Rows as the database takes them; `extra` are spelled per engine (microseconds, other text). */
function rows(database: TestDatabase): Row[] {
  const spell = (text: string): string => (database.engine === 'mariadb' ? text.replace('T', ' ').replace('Z', '') : text);
  const plain: Row[] = Array.from({ length: 35 }, (_, index) => {
    const id = index + 1;
    return { id, name: `Change ${id}`, changed_at: spell(iso(minuteOf(id))), version: id % 4 };
  });
  // Within one millisecond of minute 2 (records carry 08:02:00.000Z for all three), or on SQLite
  // the same instant in other spellings.
  const extra =
    database.engine === 'sqlite'
      ? ['2024-03-01 08:02:00', '2024-03-01T08:02:00Z', '2024-03-01T08:02:00.000+00:00']
      : ['2024-03-01T08:02:00.000700Z', '2024-03-01T08:02:00.000200Z', '2024-03-01T08:02:00.000900Z'];
  return [
    ...plain,
    ...extra.map((text, index) => ({ id: 40 + index, name: `Change ${40 + index}`, changed_at: spell(text), version: 2 })),
    { id: 50, name: 'Never stamped', changed_at: null, version: null },
  ];
}

await describeEachDatabase('reads in the order of a range field', (database) => {
  let connection: Connection;

  before(async () => {
    const { admin } = database();
    await admin.schema.dropTableIfExists('changes');
    await admin.schema.createTable('changes', (table) => {
      table.integer('id').primary();
      table.string('name', 100);
      table.datetime('changed_at', { precision: 6 });
      table.integer('version');
    });
    // Inserted out of key order, so neither the key nor the insertion order is the field's order.
    const all = rows(database());
    await admin('changes').insert([...all.filter((row) => row.id % 2 === 0), ...all.filter((row) => row.id % 2 === 1)]);
    connection = sqlConnector.createConnection(system(database()), { baseDirectory: database().baseDirectory });
  });
  after(async () => {
    await connection?.close();
  });

  async function readAll(request: ReadRequest): Promise<RecordData[]> {
    const records: RecordData[] = [];
    for await (const page of connection.read('Change', { pageSize: 3, ...request })) records.push(...page);
    return records;
  }

  const from = (value: unknown): Pick<ReadRequest, 'filter' | 'placeholders'> => ({
    filter: parseExpression('changed_at >= #from#'),
    placeholders: (path) => (path[0] === 'from' ? value : undefined),
  });

  test('a range from a mark: every record at or past it exactly once, by timestamp then key', async () => {
    const records = await readAll({ ...from(iso(2)), rangeField: 'changed_at' });
    const expected = rows(database())
      .filter((row) => (row.id >= 40 ? row.changed_at !== null : minuteOf(row.id) >= 2))
      .map((row) => row.id);
    const ids = records.map((record) => record.id as number);
    assert.deepEqual(
      [...ids].sort((a, b) => a - b),
      expected.sort((a, b) => a - b),
      'each record once, none missing',
    );
    const text = (record: RecordData): string => String(record.changed_at);
    const sorted = [...records].sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : (a.id as number) - (b.id as number)));
    assert.deepEqual(
      ids,
      sorted.map((record) => record.id),
      'in the order of the timestamp, then the key',
    );
    assert.ok(records.filter((record) => record.changed_at === iso(2)).length >= 10, 'ties span several pages');
    for (const id of [40, 41, 42]) assert.equal(records.find((record) => record.id === id)?.changed_at, iso(2));
  });

  test('a range that starts within a millisecond reads every record of it', async () => {
    const records = await readAll({ ...from('2024-03-01T08:02:00.000Z'), rangeField: 'changed_at', limit: 100 });
    const later = await readAll({ ...from('2024-03-01T08:02:00.001Z'), rangeField: 'changed_at' });
    assert.equal(records.length - later.length, records.filter((record) => record.changed_at === iso(2)).length);
    assert.ok(!later.some((record) => record.changed_at === iso(2)));
  });

  test('without a filter, NULLs and all: every record once', async () => {
    const records = await readAll({ rangeField: 'changed_at' });
    const ids = records.map((record) => record.id as number).sort((a, b) => a - b);
    assert.deepEqual(
      ids,
      rows(database())
        .map((row) => row.id)
        .sort((a, b) => a - b),
    );
    assert.equal(records[0]!.id, 50, 'the record without a timestamp comes first');
  });

  test('an Integer range field with ties: every record past the mark once, by version then key', async () => {
    const records = await readAll({ filter: parseExpression('version > 1'), rangeField: 'version' });
    const expected = rows(database()).filter((row) => row.version !== null && row.version > 1);
    assert.deepEqual(
      records.map((record) => [record.version, record.id]),
      expected.map((row) => [row.version, row.id]).sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!),
    );
  });

  test('an order asked for wins over the range field', async () => {
    const records = await readAll({ ...from(iso(3)), rangeField: 'changed_at', order: [{ field: ['id'], direction: 'desc', start: 0 }] });
    const ids = records.map((record) => record.id as number);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
    );
  });
});
