/**
 * The conformance suite's data: a CRM like the quickstart's (customers with typed addresses of type
 * main/invoice) plus accounts keyed by a string, created with Knex's schema builder so one
 * definition gives the natural column types on every engine. The rows are chosen to trip up SQL
 * that does not mean what the JS evaluator means: case variants, trailing spaces, quotes and
 * backslashes, LIKE wildcards in data, unicode and emoji, nulls and empty strings, numbers spelled
 * as text, booleans and dates.
 */
import type { Knex } from 'knex';
import type { SystemDefinition } from '../../../definitions/types.js';
import type { Engine, TestDatabase } from '../../support/databases.js';

export interface CustomerRow {
  id: number;
  name: string;
  email: string | null;
  active: boolean | null;
  score: number | null;
  balance: number | null;
  birthday: string | null;
  updated_at: string | null;
  notes: string | null;
  meta: unknown;
}

const SPECIAL_NAMES = [
  'Ada Lovelace',
  'ada lovelace',
  'ADA LOVELACE',
  'Ada',
  'Ada ',
  ' Ada',
  "O'Brien",
  'Say "hi"',
  'back\\slash',
  '100% sure',
  'under_score',
  'Zoë',
  'Łukasz Żółć',
  '日本語',
  'Smile 🙂',
  '🙂',
  'true',
  'False',
  '0',
  'Grace Hopper',
  'alan turing',
  'Barbara Liskov',
  'edsger',
  'Katherine',
  'b',
  'B',
  'M',
  'm',
  'a🙂',
  'star*',
  'what?',
  '[a-z] set',
];

function customer(id: number, name: string): CustomerRow {
  const n = id * 7919;
  const day = String((n % 28) + 1).padStart(2, '0');
  const month = String((n % 12) + 1).padStart(2, '0');
  return {
    id,
    name,
    email: id % 9 === 0 ? null : id % 11 === 0 ? '' : `${name.replace(/[^A-Za-z]/g, '').slice(0, 8) || 'x'}${id}@Example.com`,
    active: id % 7 === 0 ? null : id % 3 !== 0,
    score: id % 8 === 0 ? null : n % 100,
    balance: id % 10 === 0 ? null : (n % 1000) / 4 - 50,
    birthday: id % 6 === 0 ? null : `19${String(50 + (n % 50))}-${month}-${day}`,
    updated_at:
      id % 13 === 0
        ? null
        : `2024-${month}-${day}T${String(n % 24).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}:07.${String(n % 1000).padStart(3, '0')}Z`,
    notes: id % 4 === 0 ? null : `note ${id}`,
    meta: id % 5 === 0 ? null : { tier: id % 3, tags: ['a', String(id)] },
  };
}

export const CUSTOMERS: readonly CustomerRow[] = [
  ...SPECIAL_NAMES.map((name, index) => customer(index + 1, name)),
  ...Array.from({ length: 8 }, (_, index) => customer(SPECIAL_NAMES.length + index + 1, `Customer ${index + 1}`)),
].map((row) => {
  if (row.id === 1) return { ...row, score: 42, balance: 42, birthday: '1990-05-17', updated_at: '2024-03-04T05:06:07.089Z' };
  // Scores of 1 and 0 compare equal to true and false.
  if (row.id === 2 || row.id === 4) return { ...row, score: row.id === 2 ? 1 : 0 };
  return row;
});

export interface AddressRow {
  customer_id: number;
  type: 'main' | 'invoice';
  street: string | null;
  city: string | null;
  zip: string | null;
  country: string | null;
}

const ZIPS = ['02139', ' 22202 ', '1e3', '+5', '.5', '5.', 'abc', '', 'SW1Y 4JH', '1000', '-7', '5e', 'e5', '1.5E+2'];
const CITIES = ['London', 'london', 'Cambridge', 'Arlington', "St John's", 'Zürich', null];

export const ADDRESSES: readonly AddressRow[] = CUSTOMERS.filter((row) => row.id % 4 !== 3).flatMap((row) => {
  const main: AddressRow = {
    customer_id: row.id,
    type: 'main',
    street: `${row.id} Main St`,
    city: CITIES[row.id % CITIES.length]!,
    zip: ZIPS[row.id % ZIPS.length]!,
    country: row.id % 2 ? 'GB' : 'US',
  };
  const invoice: AddressRow = {
    customer_id: row.id,
    type: 'invoice',
    street: `PO Box ${row.id}`,
    city: CITIES[(row.id + 3) % CITIES.length]!,
    zip: null,
    country: 'GB',
  };
  return row.id % 2 === 0 ? [main, invoice] : [main];
});

export const ACCOUNTS = [
  { AccountNumber: 'A-1', AccountName: 'First', Email: 'first@example.com' },
  { AccountNumber: 'a-1', AccountName: 'first lower', Email: 'lower@example.com' },
  { AccountNumber: "A-'2", AccountName: 'Quote', Email: null },
];

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

const customerFields = {
  id: { type: 'Integer', readOnly: true },
  name: { type: 'String', required: true, maxLength: 200 },
  email: { type: 'String' },
  active: { type: 'Boolean' },
  score: { type: 'Integer' },
  balance: { type: 'Number' },
  birthday: { type: 'Date' },
  updated_at: { type: 'DateTime' },
  notes: { type: 'String' },
  meta: { type: 'Json' },
} as const;

const addresses = {
  table: 'customer_addresses',
  foreignKey: 'customer_id',
  typeField: 'type',
  types: ['main', 'invoice'],
  fields: { street: { type: 'String' }, city: { type: 'String' }, zip: { type: 'String' }, country: { type: 'String' } },
} as const;

/** The System definition of the fixture, as the loader would produce it. */
export function crmSystem(database: TestDatabase, overrides: Partial<SystemDefinition> = {}): SystemDefinition {
  return structuredClone({
    kind: 'System',
    id: 'crm',
    connector: 'sql',
    connection: database.connection,
    objects: {
      Customer: { table: 'customers', key: ['id'], fields: customerFields, groups: { addresses } },
      ReadOnlyCustomer: { table: 'customers', key: ['id'], readOnly: true, fields: customerFields },
      Account: {
        table: 'accounts',
        key: ['AccountNumber'],
        fields: {
          AccountNumber: { type: 'String', required: true, maxLength: 40 },
          AccountName: { type: 'String', required: true, maxLength: 200 },
          Email: { type: 'String', maxLength: 200 },
        },
      },
    },
    queries: {},
    ...overrides,
  }) as SystemDefinition;
}
