/**
 * The per-system connection cache: one shared connection per system definition, a new one when
 * the definition changes, and the old ones closed by `retain` after a reload and by `closeAll`.
 * Runs against a stand-in connector module, so no database is needed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectionPool, systemDigest } from '../../../connectors/connection-pool.js';
import type { Connection, ConnectorModule } from '../../../connectors/connection.js';
import type { SystemDefinition } from '../../../definitions/types.js';
import { spec } from '../../../connectors/sql/spec.js';

function system(id: string, filename = 'a.sqlite'): SystemDefinition {
  return { kind: 'System', id, connector: 'fake', connection: { client: 'sqlite3', filename }, objects: {}, queries: {} };
}

function fakeConnector(): { module: ConnectorModule; created: string[]; closed: string[] } {
  const created: string[] = [];
  const closed: string[] = [];
  const module: ConnectorModule = {
    spec,
    createConnection(definition) {
      const name = `${definition.id}:${String(definition.connection.filename)}`;
      created.push(name);
      return { close: async () => void closed.push(name) } as unknown as Connection;
    },
  };
  return { module, created, closed };
}

test('one shared connection per system definition', async () => {
  const fake = fakeConnector();
  const pool = new ConnectionPool({ baseDirectory: '/' }, async (name) => (name === 'fake' ? fake.module : undefined));
  const [a, b] = await Promise.all([pool.get(system('crm')), pool.get(system('crm'))]);
  assert.equal(a, b);
  assert.equal(await pool.get(structuredClone(system('crm'))), a, 'an equal definition shares the connection');
  assert.notEqual(await pool.get(system('crm', 'b.sqlite')), a, 'a changed definition gets its own');
  assert.deepEqual(fake.created, ['crm:a.sqlite', 'crm:b.sqlite']);
  await pool.closeAll();
  assert.deepEqual(fake.closed.sort(), ['crm:a.sqlite', 'crm:b.sqlite']);
});

test('retain closes the connections of changed and removed systems only', async () => {
  const fake = fakeConnector();
  const pool = new ConnectionPool({ baseDirectory: '/' }, async () => fake.module);
  await pool.get(system('crm'));
  await pool.get(system('erp'));
  await pool.get(system('shop'));
  await pool.retain([system('crm'), system('erp', 'changed.sqlite')]);
  assert.deepEqual(fake.closed.sort(), ['erp:a.sqlite', 'shop:a.sqlite']);
  assert.deepEqual(pool.systemIds(), ['crm']);
  await pool.get(system('erp', 'changed.sqlite'));
  assert.deepEqual(pool.systemIds(), ['crm', 'erp']);
  await pool.closeAll();
  assert.deepEqual(pool.systemIds(), []);
});

test('an unknown connector fails, and is not cached', async () => {
  const pool = new ConnectionPool({ baseDirectory: '/' }, async () => undefined);
  await assert.rejects(pool.get(system('crm')), /no connector is named 'fake'/);
  assert.deepEqual(pool.systemIds(), []);
});

test('the digest ignores key order and sees every change', () => {
  const a = system('crm');
  const reordered = {
    queries: {},
    objects: {},
    connection: { filename: 'a.sqlite', client: 'sqlite3' },
    connector: 'fake',
    id: 'crm',
    kind: 'System',
  } as SystemDefinition;
  assert.equal(systemDigest(a), systemDigest(reordered));
  assert.notEqual(systemDigest(a), systemDigest({ ...a, readOnly: true }));
});
