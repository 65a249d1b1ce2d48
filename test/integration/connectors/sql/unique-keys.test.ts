/**
 * The unique keys the sql connector reads from PostgreSQL's and MariaDB's catalogs
 * (connectors/sql/unique-keys.ts): the primary key and plain unique indexes, in index order; not
 * the indexes a conflict clause cannot use (partial, on expressions, deferrable, prefix). Table
 * names are bound, never spliced. SQLite is not asked: its writes hold the writer lock instead.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { TableCatalog, quotedRelation, readTableFacts, uniqueKeyOn, type TableFacts } from '../../../../connectors/sql/unique-keys.js';
import { describeEachDatabase } from '../../../support/databases.js';

it('quotedRelation quotes each part of a dotted name for to_regclass', () => {
  assert.equal(quotedRelation('accounts'), '"accounts"');
  assert.equal(quotedRelation('crm.accounts'), '"crm"."accounts"');
  assert.equal(quotedRelation('we"ird'), '"we""ird"');
});

it('uniqueKeyOn wants exactly the key columns, in any order; MariaDB folds case', () => {
  const facts: TableFacts = { lockScope: 1, uniqueKeys: [['id'], ['tenant', 'Ext']] };
  assert.deepEqual(uniqueKeyOn(facts, 'postgres', ['Ext', 'tenant']), ['tenant', 'Ext']);
  assert.equal(uniqueKeyOn(facts, 'postgres', ['ext', 'tenant']), undefined);
  assert.deepEqual(uniqueKeyOn(facts, 'mysql', ['ext', 'TENANT']), ['tenant', 'Ext']);
  assert.equal(uniqueKeyOn(facts, 'postgres', ['tenant']), undefined, 'part of a key is not unique');
  assert.equal(uniqueKeyOn(facts, 'postgres', ['id', 'tenant']), undefined, 'more than a key is not this key');
});

await describeEachDatabase('unique keys from the catalog', (database) => {
  const sorted = (facts: TableFacts | undefined): string[] => (facts?.uniqueKeys ?? []).map((columns) => columns.join(',')).sort();

  before(async () => {
    const { admin, engine } = database();
    if (engine === 'sqlite') return;
    await admin.schema.createTable('keyed', (t) => {
      t.increments('id');
      t.string('ext', 40).notNullable().unique();
      t.integer('tenant').notNullable();
      t.string('code', 40).notNullable();
      t.string('name', 200);
      t.string('plain', 40).index();
      t.unique(['tenant', 'code']);
    });
    if (engine === 'postgres') {
      await admin.raw('CREATE UNIQUE INDEX keyed_lower_name ON keyed (lower(name))');
      await admin.raw('CREATE UNIQUE INDEX keyed_partial ON keyed (plain) WHERE tenant > 0');
      await admin.raw('ALTER TABLE keyed ADD COLUMN late text');
      await admin.raw('ALTER TABLE keyed ADD CONSTRAINT keyed_late UNIQUE (late) DEFERRABLE INITIALLY DEFERRED');
      await admin.raw('CREATE SCHEMA other');
      await admin.raw('CREATE TABLE other.keyed (k integer PRIMARY KEY)');
    } else {
      await admin.raw('CREATE UNIQUE INDEX keyed_prefix ON keyed (name(10))');
    }
  });

  it('reads the primary key and plain unique indexes, in index order, and skips the rest', async (t) => {
    const { admin, engine } = database();
    if (engine === 'sqlite') return t.skip('SQLite writes hold the writer lock; its indexes are not read');
    const facts = await readTableFacts(admin, engine === 'postgres' ? 'postgres' : 'mysql', 'keyed');
    assert.deepEqual(sorted(facts), ['ext', 'id', 'tenant,code']);
    if (engine === 'postgres') {
      const { rows } = (await admin.raw(`SELECT 'keyed'::regclass::oid::int8 AS oid`)) as { rows: Array<{ oid: string }> };
      assert.equal(facts!.lockScope, Number(rows[0]!.oid), 'locks are scoped by the table oid');
      assert.deepEqual(sorted(await readTableFacts(admin, 'postgres', 'other.keyed')), ['k'], 'a schema-qualified table');
      assert.equal(await readTableFacts(admin, 'postgres', 'missing'), undefined, 'no such table');
    } else {
      const [rows] = (await admin.raw('SELECT DATABASE() AS name')) as [Array<{ name: string }>];
      assert.equal(facts!.lockScope, `${rows[0]!.name}.keyed`, 'locks are scoped by schema and table');
      assert.deepEqual(sorted(await readTableFacts(admin, 'mysql', 'missing')), []);
    }
  });

  it('binds the table name: a name holding SQL finds no table and runs nothing', async (t) => {
    const { admin, engine } = database();
    if (engine === 'sqlite') return t.skip('SQLite writes hold the writer lock; its indexes are not read');
    const dialect = engine === 'postgres' ? 'postgres' : 'mysql';
    for (const name of [`keyed'; DROP TABLE keyed; --`, 'keyed" OR 1=1 --', "x' OR '1'='1"]) {
      assert.deepEqual(sorted(await readTableFacts(admin, dialect, name)), []);
    }
    assert.ok(await admin.schema.hasTable('keyed'));
  });

  it('TableCatalog reads a table once per connection, and a missing one again later', async (t) => {
    const { admin, engine } = database();
    if (engine !== 'postgres') return t.skip('the catalog is the same on MariaDB; PostgreSQL tells a missing table apart');
    let reads = 0;
    const counting = () => {
      reads += 1;
      return admin;
    };
    const catalog = new TableCatalog(counting, 'postgres');
    const [first, second] = await Promise.all([catalog.get('keyed'), catalog.get('keyed')]);
    assert.equal(first, second);
    await catalog.get('keyed');
    assert.equal(reads, 1);
    assert.equal(await catalog.get('later'), undefined);
    await admin.schema.createTable('later', (table) => table.integer('k').primary());
    assert.deepEqual(sorted(await catalog.get('later')), ['k'], 'a table made after the first look is seen');
  });
});
