/**
 * SQLite files read through a pool of several connections while writes keep their single one
 * (connectors/sql/engines/sqlite.ts): reads running side by side with writes all succeed, every
 * write that finished is seen by the next read, and the read pool refuses to write. Also the
 * one-statement read of a group (group-entries.ts, joinedStatement) on records sharing a key value.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import knexFactory from 'knex';
import type { Connection, RecordData } from '../../../../connectors/connection.js';
import { createConnection } from '../../../../connectors/sql/index.js';
import { engines } from '../../../../connectors/sql/engines/index.js';
import { systemLimits } from '../../../../definitions/system-limits.js';
import type { SystemDefinition } from '../../../../definitions/types.js';

let directory: string;
let connection: Connection;

function system(filename: string, key = 'id'): SystemDefinition {
  return {
    kind: 'System',
    id: 'crm',
    connector: 'sql',
    connection: { client: 'sqlite3', filename },
    objects: {
      Customer: {
        table: 'customers',
        key: [key],
        fields: { id: { type: 'Integer' }, name: { type: 'String' } },
        groups: {
          addresses: {
            table: 'customer_addresses',
            foreignKey: 'customer_id',
            typeField: 'type',
            types: ['main', 'invoice'],
            fields: { city: { type: 'String' } },
          },
        },
      },
    },
    queries: {},
  } as unknown as SystemDefinition;
}

async function readAll(target: Connection): Promise<RecordData[]> {
  const records: RecordData[] = [];
  for await (const page of target.read('Customer', { pageSize: 7 })) records.push(...page);
  return records;
}

before(async () => {
  directory = await mkdtemp(join(tmpdir(), 'syncline-read-pool-'));
  const setup = knexFactory({ client: 'sqlite3', useNullAsDefault: true, connection: { filename: join(directory, 'crm.sqlite') } });
  await setup.raw('CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)');
  await setup.raw(
    'CREATE TABLE customer_addresses (customer_id INTEGER NOT NULL, type TEXT NOT NULL, city TEXT, PRIMARY KEY (customer_id, type))',
  );
  await setup.destroy();
  connection = createConnection(system('crm.sqlite'), { baseDirectory: directory });
});

after(async () => {
  await connection.close();
  await rm(directory, { recursive: true, force: true });
});

test('reads side by side with writes all succeed, and see every write that finished', async () => {
  const writes = (async () => {
    for (let id = 1; id <= 30; id += 1) {
      await connection.write('Customer', {
        values: { id, name: `Customer ${id}` },
        groups: { addresses: { main: { city: `City ${id}` } } },
      });
    }
  })();
  const reads = Array.from({ length: 24 }, () => readAll(connection));
  await Promise.all([writes, ...reads]);
  const records = await readAll(connection);
  assert.equal(records.length, 30);
  assert.deepEqual(records[29], { id: 30, name: 'Customer 30', addresses: { main: { city: 'City 30' } } });
  await connection.write('Customer', { values: { id: 30, name: 'Renamed' } });
  assert.equal((await readAll(connection))[29]!.name, 'Renamed', 'a read right after a write sees it');
});

test('a SQLite file gets a read pool, whose sessions refuse to write; an in-memory database does not', async () => {
  assert.equal(engines.sqlite.hasOwnReadPool({ filename: 'crm.sqlite' }, { baseDirectory: directory }), true);
  assert.equal(
    engines.sqlite.hasOwnReadPool({ filename: ':memory:' }, { baseDirectory: directory }),
    false,
    'another connection would open another, empty database',
  );
  const reader = knexFactory(
    engines.sqlite.systemConfig({ filename: 'crm.sqlite' }, { baseDirectory: directory }, 'read', systemLimits(system('crm.sqlite'))),
  );
  try {
    await assert.rejects(reader.raw("INSERT INTO customers (id, name) VALUES (1000, 'x')"), /readonly/i);
  } finally {
    await reader.destroy();
  }
});

test('records sharing a key value each keep their own row in the one-statement group read', async () => {
  // `name` as the declared key: two customers share it, and each must come back, in key order.
  const byName = createConnection(system('crm.sqlite', 'name'), { baseDirectory: directory });
  try {
    await connection.write('Customer', { values: { id: 31, name: 'Twin' } });
    await connection.write('Customer', { values: { id: 32, name: 'Twin' } });
    const twins = (await readAll(byName)).filter((record) => record.name === 'Twin');
    assert.deepEqual(twins.map((record) => record.id).sort(), [31, 32]);
    assert.deepEqual(
      twins.map((record) => record.addresses),
      [{}, {}],
    );
  } finally {
    await byName.close();
  }
});
