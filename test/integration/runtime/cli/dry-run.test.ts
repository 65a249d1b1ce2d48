/**
 * `syncline run SYNC --dry-run` as a reviewer uses it, in a child process: the plan of a sync with
 * creates, updates field by field, unchanged records, skips and failures, on every test database
 * (the target refusing what only its engine refuses: NUL in PostgreSQL text); `--format json`;
 * nothing written — the target, the runtime database (no queue item), a drop folder's files, a
 * record store — and the run afterwards doing what the plan said; flows refused; exit codes.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../../../../runtime/database/migrate.js';
import { storeRecords } from '../../../../runtime/record-store/store-record.js';
import { runCli } from '../../../support/cli-process.js';
import { databaseTargets, describeEachDatabase, type TestDatabase } from '../../../support/databases.js';
import { openRuntimeDatabase } from '../../../support/runtime-databases.js';

/** The definitions: a CRM and an ERP on the test database, a drop folder, syncs between them and a flow. */
function definitions(database: TestDatabase): string {
  const connection = JSON.stringify(
    database.engine === 'sqlite'
      ? { client: 'sqlite3', filename: join(database.baseDirectory, String(database.connection.filename)) }
      : database.connection,
  );
  return `kind: System
id: crm
connector: sql
connection: ${connection}
objects:
  Customer:
    table: customers
    key: [id]
    fields: { id: { type: Integer }, name: { type: String }, email: { type: String }, active: { type: Boolean } }
    groups:
      addresses: { table: customer_addresses, foreignKey: customer_id, typeField: type, types: [main], fields: { city: { type: String } } }
---
kind: System
id: erp
connector: sql
connection: ${connection}
objects:
  Account:
    table: accounts
    key: [AccountNumber]
    fields:
      AccountNumber: { type: String, required: true }
      AccountName: { type: String, required: true, maxLength: 40 }
      Email: { type: String }
      City: { type: String }
---
kind: System
id: drop
connector: file
connection: { directory: drop }
objects:
  Order:
    path: inbox/orders-*.csv
    key: [OrderNumber]
    fields: { OrderNumber: { type: String }, Customer: { type: String }, Email: { type: String } }
    archive: { moveTo: done }
---
kind: Sync
id: customers-to-accounts
name: CRM customers → ERP accounts
source: { system: crm, object: Customer, where: "active = true", order: id asc }
target: { system: erp, object: Account }
precondition: "#email# <> ''"
mapping: '{ "AccountNumber": "C-" & $string(id), "AccountName": name & (id = 7 ? "\\u0000" : ""), "Email": $lowercase(email), "City": addresses.main.city }'
match: { where: "AccountNumber = #AccountNumber#" }
batchSize: 2
---
kind: Sync
id: drop-to-accounts
source: { system: drop, object: Order }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": "O-" & OrderNumber, "AccountName": Customer, "Email": $lowercase(Email) }'
match: { where: "AccountNumber = #AccountNumber#" }
---
kind: Sync
id: stored-to-accounts
source: { recordStore: true }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": "S-" & $string(id), "AccountName": name }'
match: { where: "AccountNumber = #AccountNumber#" }
---
kind: Flow
id: nightly
steps: [{ sync: stored-to-accounts }, { sync: customers-to-accounts }]
`;
}

const longName = 'Barbara Liskov, Institute Professor at the MIT';

async function createData(database: TestDatabase): Promise<void> {
  const admin = database.admin;
  for (const table of ['customer_addresses', 'customers', 'accounts']) await admin.schema.dropTableIfExists(table);
  await admin.schema.createTable('customers', (table) => {
    table.integer('id').primary();
    table.string('name', 100);
    table.string('email', 100);
    table.boolean('active');
  });
  await admin.schema.createTable('customer_addresses', (table) => {
    table.integer('customer_id');
    table.string('type', 10);
    table.string('city', 100);
    table.primary(['customer_id', 'type']);
  });
  await admin.schema.createTable('accounts', (table) => {
    table.string('AccountNumber', 20).primary();
    table.string('AccountName', 100).notNullable();
    table.string('Email', 100);
    table.string('City', 100);
  });
  await admin('customers').insert([
    { id: 1, name: 'Ada Lovelace', email: 'Ada@Example.com', active: true },
    { id: 2, name: 'Grace Hopper', email: 'grace@example.com', active: true },
    { id: 3, name: 'Alan Turing', email: 'alan@example.com', active: true },
    { id: 4, name: 'Edsger Dijkstra', email: '', active: true },
    { id: 5, name: longName, email: 'barbara@example.com', active: true },
    { id: 6, name: 'Katherine Johnson', email: 'katherine@example.com', active: false },
    { id: 7, name: 'Mary Jackson', email: 'mary@example.com', active: true },
    { id: 8, name: 'Hedy Lamarr', email: 'HEDY@EXAMPLE.COM', active: true },
  ]);
  await admin('customer_addresses').insert([
    { customer_id: 1, type: 'main', city: 'London' },
    { customer_id: 2, type: 'main', city: 'Arlington' },
    { customer_id: 3, type: 'main', city: 'Wilmslow' },
  ]);
  await admin('accounts').insert([
    { AccountNumber: 'C-2', AccountName: 'Grace Hopper (old name)', Email: 'grace@example.com', City: 'Arlington' },
    { AccountNumber: 'C-3', AccountName: 'Alan Turing', Email: 'alan@example.com', City: 'Wilmslow' },
    { AccountNumber: 'C-8', AccountName: 'Hedy Lamarr', Email: 'old@example.com', City: null },
  ]);
}

/** A definitions directory for `database`, its drop folder with one file of `orders` orders. */
function definitionsDirectory(database: TestDatabase, orders: number): string {
  const directory = mkdtempSync(join(tmpdir(), 'syncline-dry-run-'));
  writeFileSync(join(directory, 'definitions.yaml'), definitions(database));
  mkdirSync(join(directory, 'drop', 'inbox'), { recursive: true });
  const lines = ['OrderNumber,Customer,Email', ...Array.from({ length: orders }, (_, i) => `${1000 + i},Customer ${i},C${i}@Example.com`)];
  writeFileSync(join(directory, 'drop', 'inbox', 'orders-1.csv'), `${lines.join('\n')}\n`);
  return directory;
}

/** What the dry run must leave as it was: the target, the source and the runtime database's tables. */
async function everything(database: TestDatabase): Promise<unknown> {
  const admin = database.admin;
  return {
    accounts: await admin('accounts').orderBy('AccountNumber'),
    customers: await admin('customers').orderBy('id'),
    queue: await admin('queue_items').select('id', 'status'),
    store: await admin('record_store').select('guid', 'record').orderBy('guid'),
  };
}

const runtimeUrl = (database: TestDatabase): string =>
  database.engine === 'sqlite'
    ? `sqlite:${join(database.baseDirectory, String(database.connection.filename))}`
    : String(database.connection.url);

await describeEachDatabase('syncline run --dry-run', (database) => {
  let directory: string;
  const dryRun = (...args: string[]) =>
    runCli(['run', ...args, '--dry-run'], { env: { SYNCLINE_DEFINITIONS: directory, SYNCLINE_DB: runtimeUrl(database()) } });

  before(async () => {
    await createData(database());
    directory = definitionsDirectory(database(), 2);
    const runtime = await openRuntimeDatabase(database());
    await migrate(runtime);
    await runtime.close();
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  test('the plan: creates, updates field by field, unchanged, skips, failures; nothing written; exit 1', async () => {
    const before = await everything(database());
    const plan = await dryRun('customers-to-accounts');
    assert.equal(plan.code, 1, plan.stderr);
    assert.deepEqual(await everything(database()), before, 'nothing was written, no queue item');
    const nul = database().engine === 'postgres';
    const text = plan.stdout;
    assert.match(text, /^Dry run of customers-to-accounts \(CRM customers → ERP accounts\): nothing is written\n/);
    assert.match(
      text,
      /\n {2}from {3}crm\/Customer where active = true\n {2}to {5}erp\/Account, matched by AccountNumber = #AccountNumber#\n/,
    );
    assert.match(text, new RegExp(`\\nPlan: ${nul ? 1 : 2} to create · 2 to update · 1 unchanged · 1 to skip · ${nul ? 2 : 1} to fail\\n`));
    assert.ok(
      text.includes(
        [
          '  Customer 1 → Account C-1',
          '    AccountNumber  "C-1"',
          '    AccountName    "Ada Lovelace"',
          '    Email          "ada@example.com"',
          '    City           "London"',
        ].join('\n'),
      ),
      text,
    );
    assert.ok(
      text.includes(
        [
          'Update (2)',
          '  Customer 2 → Account C-2',
          '    AccountName  "Grace Hopper (old name)" → "Grace Hopper"',
          '  Customer 8 → Account C-8',
          '    Email  "old@example.com" → "hedy@example.com"',
          '',
          'Unchanged (1)',
          '  not listed (--verbose lists them): each matches Account records holding every value it writes',
          '',
          'Skip (1)',
          "  Customer 4: the precondition #email# <> '' is not met",
        ].join('\n'),
      ),
      text,
    );
    assert.match(text, /\nFail \(\d\)\n {2}Customer 5: Account\.AccountName: longer than the 40 characters allowed\n/);
    if (nul) assert.match(text, /\n {2}Customer 7: Account\.AccountName: PostgreSQL text cannot hold the NUL character \(U\+0000\)\n/);
    else assert.match(text, /\n {2}Customer 7 → Account C-7\n {4}AccountNumber {2}"C-7"\n {4}AccountName {4}"Mary Jackson\\u0000"\n/);
    assert.match(text, /\ncustomers-to-accounts: Complete in (?:\d+ ms|[\d.]+ s) \(dry run: nothing was written\)\n/);
    assert.match(
      text,
      new RegExp(
        `\\n {2}Read {5}7\\n {2}Created {2}${nul ? 1 : 2}\\n {2}Updated {2}2\\n {2}Skipped {2}2\\n {2}Failed {3}${nul ? 2 : 1}\\n`,
      ),
    );
    assert.match(text, /\nSkipped counts the 1 unchanged: a run leaves them as they are\.\n/);
    assert.match(text, /\nNot checked: unique keys, foreign keys and other constraints only erp knows/);
    assert.match(plan.stderr, /^running customers-to-accounts \(dry run\), 7 source records$/m);

    const verbose = await dryRun('customers-to-accounts', '--verbose');
    assert.match(verbose.stdout, /\nUnchanged \(1\)\n {2}Customer 3 → Account C-3\n\n/);
  });

  test('--format json: one document listing every record, the counts and the statistics; the run then does what it planned', async () => {
    const before = await everything(database());
    const plan = await dryRun('customers-to-accounts', '--format', 'json');
    assert.equal(plan.code, 1, plan.stderr);
    assert.deepEqual(await everything(database()), before);
    const document = JSON.parse(plan.stdout) as {
      records: Array<{ position: number; sourceId: string; action: string; reason?: string; targets?: unknown; values?: unknown }>;
      counts: Record<string, number>;
      statistics: Record<string, number>;
      status: string;
      written: boolean;
    };
    const nul = database().engine === 'postgres';
    assert.deepEqual(
      document.records.map((record) => [record.position, record.sourceId, record.action]),
      [
        [1, '1', 'create'],
        [2, '2', 'update'],
        [3, '3', 'unchanged'],
        [4, '4', 'skip'],
        [5, '5', 'fail'],
        [6, '7', nul ? 'fail' : 'create'],
        [7, '8', 'update'],
      ],
      'every record read, in read order',
    );
    assert.deepEqual(document.records[1]!.targets, [
      { key: { AccountNumber: 'C-2' }, changes: [{ field: 'AccountName', old: 'Grace Hopper (old name)', new: 'Grace Hopper' }] },
    ]);
    assert.deepEqual(document.records[4]!.reason, 'Account.AccountName: longer than the 40 characters allowed');
    assert.deepEqual(document.counts, { create: nul ? 1 : 2, update: 2, unchanged: 1, skip: 1, fail: nul ? 2 : 1 });
    assert.equal(document.status, 'Complete');
    assert.equal(document.written, false);

    const run = await runCli(['run', 'customers-to-accounts'], {
      env: { SYNCLINE_DEFINITIONS: directory, SYNCLINE_DB: runtimeUrl(database()) },
    });
    assert.equal(run.code, 1, run.stderr);
    const counted = Object.fromEntries(
      [...run.stdout.matchAll(/^ {2}(Read|Created|Updated|Skipped|Failed) +(\d+)$/gm)].map((row) => [
        row[1]!.toLowerCase(),
        Number(row[2]),
      ]),
    );
    const unchanged = /^ {2}(\d+) of the skipped were unchanged/m.exec(run.stdout)?.[1];
    assert.deepEqual({ ...counted, unchanged: Number(unchanged) }, document.statistics, 'the run counts what the plan said');
    const accounts = (await database().admin('accounts').orderBy('AccountNumber')) as Array<Record<string, unknown>>;
    assert.deepEqual(
      accounts.find((account) => account.AccountNumber === 'C-8'),
      { AccountNumber: 'C-8', AccountName: 'Hedy Lamarr', Email: 'hedy@example.com', City: null },
    );
    assert.equal(accounts.find((account) => account.AccountNumber === 'C-2')?.AccountName, 'Grace Hopper');
    await createData(database());
  });

  test('exit 0 when no record would fail; --where and --param as a run takes them', async () => {
    const plan = await dryRun('customers-to-accounts', '--where', 'id <= #params.last# OR id = 8', '--param', 'last=3');
    assert.equal(plan.code, 0, plan.stdout);
    assert.match(
      plan.stdout,
      /from {3}crm\/Customer where active = true and \(--where\) id <= #params\.last# OR id = 8\n.*\n {2}params last=3\n/,
    );
    assert.match(plan.stdout, /\nPlan: 1 to create · 2 to update · 1 unchanged · 0 to skip · 0 to fail\n/);
  });
});

const sqlite = (await databaseTargets()).find((target) => target.engine === 'sqlite');

describe('syncline run --dry-run, whatever the database', { skip: sqlite === undefined && 'SQLite not selected' }, () => {
  let database: TestDatabase;
  let directory: string;
  let runtimeFile: string;
  const run = (args: string[], extra: Record<string, string> = {}) =>
    runCli(['run', ...args], { env: { SYNCLINE_DEFINITIONS: directory, SYNCLINE_DB: `sqlite:${runtimeFile}`, ...extra } });

  before(async () => {
    database = await sqlite!.create();
    await createData(database);
    directory = definitionsDirectory(database, 60);
    runtimeFile = join(directory, 'runtime', 'syncline.db');
  });
  after(async () => {
    await database?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  test('a drop folder is read, not archived; a section lists 50 records and says how many more; no runtime database is made', async () => {
    mkdirSync(join(directory, 'runtime'));
    const plan = await run(['drop-to-accounts', '--dry-run']);
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(
      plan.stdout,
      /\nPlan: 60 to create · 0 to update · 0 unchanged · 0 to skip · 0 to fail\n\nCreate \(60\)\n {2}Order 1000 → Account O-1000\n/,
    );
    assert.match(
      plan.stdout,
      /\n {2}Order 1049 → Account O-1049\n(?: {4}.*\n)+ {2}… and 10 more \(--format json or --verbose lists them all\)\n/,
    );
    assert.doesNotMatch(plan.stdout, /Order 1050/);
    assert.deepEqual(readdirSync(join(directory, 'drop')), ['inbox'], 'no archive folder');
    assert.deepEqual(readdirSync(join(directory, 'drop', 'inbox')), ['orders-1.csv']);
    assert.deepEqual(readdirSync(join(directory, 'runtime')), [], 'the runtime database is not even created');
    assert.equal((await database.admin('accounts').where('AccountNumber', 'like', 'O-%')).length, 0);

    const verbose = await run(['drop-to-accounts', '--dry-run', '--verbose']);
    assert.match(verbose.stdout, /\n {2}Order 1059 → Account O-1059\n/);

    const ran = await run(['drop-to-accounts']);
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(readdirSync(join(directory, 'drop', 'done')), ['orders-1.csv'], 'a run archives what the dry run left');
  });

  test('a record store is read and left as it was, from a runtime database opened read-only', async () => {
    const missing = await run(['stored-to-accounts', '--dry-run'], { SYNCLINE_DB: `sqlite:${join(directory, 'nowhere.db')}` });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: cannot read the runtime database sqlite:.*nowhere\.db: .*nowhere\.db does not exist$/m);
    assert.equal(existsSync(join(directory, 'nowhere.db')), false);

    const runtime = await openRuntimeDatabase(database);
    try {
      await migrate(runtime);
      await storeRecords(runtime, 'stored-to-accounts', [{ id: 1, name: 'One' }], { now: new Date('2030-01-01T00:00:00Z') });
      await storeRecords(runtime, 'stored-to-accounts', [{ id: 2, name: null }], { now: new Date('2030-01-01T00:00:01Z') });
      const before = await everything(database);
      const plan = await run(['stored-to-accounts', '--dry-run', '--format', 'json'], { SYNCLINE_DB: runtimeUrl(database) });
      assert.equal(plan.code, 1, plan.stderr);
      const document = JSON.parse(plan.stdout) as { records: Array<{ action: string; reason?: string }> };
      assert.deepEqual(
        document.records.map((record) => [record.action, record.reason]),
        [
          ['create', undefined],
          ['fail', 'Account.AccountName: a value is required'],
        ],
      );
      assert.deepEqual(await everything(database), before, 'the record store keeps its records; no queue item');
    } finally {
      await runtime.close();
    }
  });

  test('a flow is refused, and so are arguments that do not fit, with exit 2', async () => {
    const flow = await run(['nightly', '--dry-run']);
    assert.equal(flow.code, 2);
    assert.match(
      flow.stderr,
      /^error: --dry-run plans a sync, and 'nightly' is a flow: its steps read what the steps before them write, which a plan does not write; dry-run its syncs one by one \(stored-to-accounts, customers-to-accounts\)$/m,
    );
    const format = await run(['customers-to-accounts', '--dry-run', '--format', 'xml']);
    assert.equal(format.code, 2);
    assert.match(format.stderr, /^error: option '--format <format>' argument 'xml' is invalid\. Allowed choices are text, json\.$/m);
    const notDry = await run(['customers-to-accounts', '--format', 'json']);
    assert.equal(notDry.code, 2);
    assert.match(notDry.stderr, /^error: --format is for the plan of --dry-run$/m);
    const where = await run(['customers-to-accounts', '--dry-run', '--where', 'id =']);
    assert.equal(where.code, 2);
    assert.match(where.stderr, /^error: --where: /m);
    const unknown = await run(['customers-to-acounts', '--dry-run']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no sync or flow 'customers-to-acounts'/);
  });
});
