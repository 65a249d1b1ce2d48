/**
 * The conformance fixture in a SQL database: the CRM's tables created with Knex's schema builder,
 * so one definition gives the natural column types on every engine, its rows inserted, and the
 * `sql` connector's target for the shared suite.
 */
import type { Knex } from 'knex';
import * as sqlConnector from '../../../../connectors/sql/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import type { Engine, TestDatabase } from '../../../support/databases.js';
import type { ConformanceTarget } from '../conformance.js';
import { ACCOUNTS, ADDRESSES, CUSTOMERS, crmDefinition } from '../crm-fixture.js';

function dateTimeFor(engine: Engine, iso: string | null): string | null {
  return iso !== null && engine === 'mariadb' ? iso.replace('T', ' ').replace('Z', '') : iso;
}

/** The quickstart's typed-group table (addresses of type main/invoice), the same on every engine. */
export async function createCustomerAddressesTable(admin: Knex): Promise<void> {
  await admin.schema.createTable('customer_addresses', (t: Knex.CreateTableBuilder) => {
    t.integer('customer_id').unsigned().notNullable().references('id').inTable('customers').onDelete('CASCADE');
    t.string('type', 20).notNullable();
    t.string('street', 200);
    t.string('city', 200);
    t.string('zip', 40);
    t.string('country', 2);
    t.primary(['customer_id', 'type']);
  });
}

export async function createCrm(database: TestDatabase): Promise<void> {
  const { admin, engine } = database;
  await admin.schema.createTable('customers', (t: Knex.CreateTableBuilder) => {
    t.increments('id');
    t.string('name', 200).notNullable();
    t.string('email', 200);
    t.boolean('active');
    t.integer('score');
    t.double('balance');
    t.date('birthday');
    t.datetime('updated_at', { precision: 3 });
    t.text('notes', 'longtext');
    t.json('meta');
  });
  await createCustomerAddressesTable(admin);
  await admin.schema.createTable('accounts', (t: Knex.CreateTableBuilder) => {
    // Account numbers differ by case only ('A-1', 'a-1'): MariaDB needs a binary collation to keep both.
    const number = t.string('AccountNumber', 40).primary();
    if (engine === 'mariadb') number.collate('utf8mb4_bin');
    t.string('AccountName', 200).notNullable();
    t.string('Email', 200).unique();
  });
  await admin('customers').insert(
    CUSTOMERS.map((row) => ({
      ...row,
      updated_at: dateTimeFor(engine, row.updated_at),
      meta: row.meta === null ? null : JSON.stringify(row.meta),
    })),
  );
  await admin('customer_addresses').insert([...ADDRESSES]);
  await admin('accounts').insert(ACCOUNTS);
  if (engine === 'postgres') await admin.raw(`SELECT setval(pg_get_serial_sequence('customers', 'id'), (SELECT MAX(id) FROM customers))`);
}

export async function tableCounts(admin: Knex): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['customers', 'customer_addresses', 'accounts']) {
    const row = (await admin(table).count({ n: '*' }).first()) as { n: unknown };
    counts[table] = Number(row.n);
  }
  return counts;
}

/** The System definition of the fixture in `database`, as the loader would produce it. */
export function crmSystem(database: TestDatabase, overrides: Partial<SystemDefinition> = {}): SystemDefinition {
  return crmDefinition(
    'sql',
    database.connection,
    {
      Customer: { table: 'customers' },
      Account: { table: 'accounts' },
      addresses: { table: 'customer_addresses', foreignKey: 'customer_id', typeField: 'type' },
    },
    {},
    overrides,
  );
}

/** The shared suite's view of one test database. */
export function sqlTarget(database: () => TestDatabase): ConformanceTarget {
  return {
    module: sqlConnector,
    create: () => createCrm(database()),
    system: (overrides) => crmSystem(database(), overrides),
    unreachable: () => {
      const settings = database().connection;
      const broken =
        settings.client === 'sqlite3'
          ? { ...settings, filename: 'missing/nothing.sqlite' }
          : { ...settings, url: String(settings.url).replace(/:(5432|3306)\//, ':1/') };
      return crmSystem(database(), { connection: broken });
    },
    baseDirectory: () => database().baseDirectory,
    counts: async () => {
      const counts = await tableCounts(database().admin);
      return { Customer: counts.customers!, Account: counts.accounts!, addresses: counts.customer_addresses! };
    },
    unsupportedFilters: ['name = 1990-05-17', "meta = 'x'", 'contains(name, email)', 'name LIKE email', 'meta', 'score = name'],
    defaultOrder: 'key',
    generatedKeys: true,
    uniqueConstraints: true,
    discovered: { Customer: { table: 'customers' }, Account: { table: 'accounts' }, addresses: { table: 'customer_addresses' } },
  };
}
