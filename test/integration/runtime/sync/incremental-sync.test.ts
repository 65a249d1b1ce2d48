/**
 * Incremental runs of a sync with a cursor, through `syncline run` in a child process, on every
 * test database: the first run reads everything and keeps its mark; the next reads only records
 * changed since (assert the statistics, the cursor range and the target); a record that failed is
 * read again until it goes through; --full reads everything; the look-back reads a late commit
 * again; an Integer key cursor reads only new keys; records already in the target as mapped are
 * not written (Unchanged); records sharing a timestamp across page boundaries are read once each. And `syncline validate` refusing a cursor that cannot work.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { migrate } from '../../../../runtime/database/migrate.js';
import { runCli } from '../../../support/cli-process.js';
import { describeEachDatabase, type TestDatabase } from '../../../support/databases.js';
import { openRuntimeDatabase } from '../../../support/runtime-databases.js';

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
    fields: { id: { type: Integer }, name: { type: String }, changed_at: { type: DateTime } }
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
      AccountName: { type: String, required: true, maxLength: 20 }
  Ledger:
    table: ledger
    key: [Number]
    fields: { Number: { type: Integer, required: true }, Name: { type: String, maxLength: 20 } }
  Note:
    table: notes
    key: [Number]
    fields: { Number: { type: Integer, required: true }, Name: { type: String } }
---
kind: Sync
id: customers
source: { system: crm, object: Customer, cursor: { field: changed_at, lookBack: 10m } }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": "C-" & $string(id), "AccountName": name }'
match: { where: "AccountNumber = #AccountNumber#" }
batchSize: 2
---
kind: Sync
id: customers-by-id
source: { system: crm, object: Customer, cursor: { field: id } }
target: { system: erp, object: Ledger }
mapping: '{ "Number": id, "Name": name }'
match: { where: "Number = #Number#" }
---
kind: Sync
id: customers-one
source: { system: crm, object: Customer, where: "#params.id# IS NULL OR id = #params.id#", cursor: { field: id } }
target: { system: erp, object: Note }
mapping: '{ "Number": id, "Name": name }'
match: { where: "Number = #Number#" }
`;
}

const base = Date.parse('2024-03-01T08:00:00.000Z');
/** The instant `minutes` after 08:00, as the test database takes it. */
function at(database: TestDatabase, minutes: number): string {
  const iso = new Date(base + minutes * 60_000).toISOString();
  return database.engine === 'mariadb' ? iso.replace('T', ' ').replace('Z', '') : iso;
}
const iso = (minutes: number): string => new Date(base + minutes * 60_000).toISOString();

async function createData(database: TestDatabase): Promise<void> {
  const admin = database.admin;
  for (const table of ['customers', 'accounts', 'ledger', 'notes']) await admin.schema.dropTableIfExists(table);
  await admin.schema.createTable('customers', (table) => {
    table.integer('id').primary();
    table.string('name', 100);
    table.datetime('changed_at', { precision: 3 });
  });
  await admin.schema.createTable('accounts', (table) => {
    table.string('AccountNumber', 20).primary();
    table.string('AccountName', 100).notNullable();
  });
  await admin.schema.createTable('ledger', (table) => {
    table.integer('Number').primary();
    table.string('Name', 100);
  });
  await admin.schema.createTable('notes', (table) => {
    table.integer('Number').primary();
    table.string('Name', 100);
  });
  await admin('customers').insert([1, 2, 3, 4, 5].map((id) => ({ id, name: `Customer ${id}`, changed_at: at(database, id) })));
}

const runtimeUrl = (database: TestDatabase): string =>
  database.engine === 'sqlite'
    ? `sqlite:${join(database.baseDirectory, String(database.connection.filename))}`
    : String(database.connection.url);

/** The statistics table of `syncline run` as numbers, with the unchanged count and the cursor lines. */
function statistics(stdout: string): Record<string, number | string> {
  const rows = [...stdout.matchAll(/^ {2}(Read|Created|Updated|Skipped|Failed) +([\d,]+)$/gm)];
  const result: Record<string, number | string> = Object.fromEntries(rows.map((row) => [row[1]!, Number(row[2]!.replaceAll(',', ''))]));
  result.Unchanged = Number(/^ {2}(\d+) of the skipped were unchanged/m.exec(stdout)?.[1] ?? 0);
  const cursor = /^ {2}Cursor (\S+): read (.*)$/m.exec(stdout);
  if (cursor !== null) result.Cursor = `${cursor[1]}: ${cursor[2]}`;
  const mark = /^ {2}Mark {3}(.*)$/m.exec(stdout);
  if (mark !== null) result.Mark = mark[1]!;
  return result;
}

await describeEachDatabase('incremental sync runs (source.cursor)', (database) => {
  let directory: string;
  const run = (...args: string[]) =>
    runCli(['run', ...args], { env: { SYNCLINE_DEFINITIONS: directory, SYNCLINE_DB: runtimeUrl(database()) } });
  const accounts = async () =>
    Object.fromEntries(
      ((await database().admin('accounts').orderBy('AccountNumber')) as Array<{ AccountNumber: string; AccountName: string }>).map(
        (row) => [row.AccountNumber, row.AccountName],
      ),
    );

  before(async () => {
    await createData(database());
    directory = mkdtempSync(join(tmpdir(), 'syncline-incremental-'));
    writeFileSync(join(directory, 'definitions.yaml'), definitions(database()));
    const runtime = await openRuntimeDatabase(database());
    await migrate(runtime);
    await runtime.close();
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  test('the first run reads everything; the next only what changed since, writing only what differs', async () => {
    const first = await run('customers');
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(statistics(first.stdout), {
      Read: 5,
      Created: 5,
      Updated: 0,
      Skipped: 0,
      Failed: 0,
      Unchanged: 0,
      Cursor: 'changed_at: everything (a full run), up to 2024-03-01T08:05:00.000Z',
      Mark: iso(5),
    });

    // Nothing changed: the look-back (10 minutes) reads the last records again, finds them as they are, writes nothing.
    const again = await run('customers');
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(statistics(again.stdout), {
      Read: 5,
      Created: 0,
      Updated: 0,
      Skipped: 5,
      Failed: 0,
      Unchanged: 5,
      Cursor: `changed_at: from ${iso(-5)}, up to ${iso(5)}`,
      Mark: iso(5),
    });

    const admin = database().admin;
    await admin('customers').insert([6, 7, 8, 9, 10].map((id) => ({ id, name: `Customer ${id}`, changed_at: at(database(), 100 + id) })));
    await admin('customers')
      .where({ id: 7 })
      .update({ name: 'Customer 7 renamed', changed_at: at(database(), 200) });
    await admin('customers')
      .where({ id: 2 })
      .update({ name: 'Customer 2 renamed', changed_at: at(database(), 201) });
    const third = await run('customers');
    assert.equal(third.code, 0, third.stderr);
    // From the mark (08:05) less the look-back on: 1 to 5 (2 changed), and the new 6 to 10.
    assert.deepEqual(statistics(third.stdout), {
      Read: 10,
      Created: 5,
      Updated: 1,
      Skipped: 4,
      Failed: 0,
      Unchanged: 4,
      Cursor: `changed_at: from ${iso(-5)}, up to ${iso(201)}`,
      Mark: iso(201),
    });
    const target = await accounts();
    assert.equal(target['C-2'], 'Customer 2 renamed');
    assert.equal(target['C-7'], 'Customer 7 renamed');
    assert.equal(Object.keys(target).length, 10);

    const quiet = await run('customers');
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.deepEqual(
      [statistics(quiet.stdout).Read, statistics(quiet.stdout).Cursor],
      [2, `changed_at: from ${iso(191)}, up to ${iso(201)}`],
      'only the records within the look-back of the new mark',
    );
  });

  test('a record that failed holds the mark below it and is read again until it goes through', async () => {
    const admin = database().admin;
    await admin('customers').insert({ id: 11, name: 'A name far longer than twenty characters', changed_at: at(database(), 300) });
    await admin('customers').insert({ id: 12, name: 'Customer 12', changed_at: at(database(), 400) });
    const failing = await run('customers');
    assert.equal(failing.code, 1, failing.stderr);
    const counted = statistics(failing.stdout);
    assert.equal(counted.Failed, 1);
    assert.equal(counted.Created, 1);
    assert.equal(counted.Mark, iso(300), 'the mark stays at the failed record, not at 12');
    assert.match(failing.stdout, /\[11\] Account\.AccountName: longer than the 20 characters allowed/);

    const still = await run('customers');
    assert.equal(still.code, 1);
    assert.equal(statistics(still.stdout).Cursor, `changed_at: from ${iso(290)}, up to ${iso(400)}`);
    assert.equal(statistics(still.stdout).Failed, 1, 'read again, and still failing');

    await admin('customers').where({ id: 11 }).update({ name: 'Customer 11' });
    const mended = await run('customers');
    assert.equal(mended.code, 0, mended.stderr);
    assert.equal(statistics(mended.stdout).Created, 1);
    assert.equal(statistics(mended.stdout).Mark, iso(400));
    assert.equal((await accounts())['C-11'], 'Customer 11');
  });

  test('the look-back reads a late commit with an earlier timestamp; --full reads everything', async () => {
    const admin = database().admin;
    // Committed after the last run, stamped 5 minutes before its mark (08:00 + 400 min).
    await admin('customers').insert({ id: 13, name: 'Customer 13', changed_at: at(database(), 395) });
    const late = await run('customers');
    assert.equal(late.code, 0, late.stderr);
    assert.equal(statistics(late.stdout).Created, 1);
    assert.equal((await accounts())['C-13'], 'Customer 13');

    await admin('accounts').where({ AccountNumber: 'C-1' }).update({ AccountName: 'edited in the ERP' });
    const full = await run('customers', '--full');
    assert.equal(full.code, 0, full.stderr);
    assert.deepEqual(statistics(full.stdout), {
      Read: 13,
      Created: 0,
      Updated: 1,
      Skipped: 12,
      Failed: 0,
      Unchanged: 12,
      Cursor: `changed_at: everything (a full run), up to ${iso(400)}`,
      Mark: iso(400),
    });
    assert.equal((await accounts())['C-1'], 'Customer 1');
  });

  test('an Integer key cursor reads only keys past the mark', async () => {
    const first = await run('customers-by-id');
    assert.equal(first.code, 0, first.stderr);
    assert.equal(statistics(first.stdout).Created, 13);
    assert.equal(statistics(first.stdout).Mark, '13');
    await database()
      .admin('customers')
      .insert({ id: 14, name: 'Customer 14', changed_at: at(database(), 500) });
    const next = await run('customers-by-id');
    assert.equal(next.code, 0, next.stderr);
    assert.deepEqual(
      [statistics(next.stdout).Read, statistics(next.stdout).Created, statistics(next.stdout).Cursor],
      [1, 1, 'id: from 13, up to 14'],
    );
    assert.match(next.stderr, /running customers-by-id \(item [0-9a-f-]{36}\), 1 source record\n/, 'the progress counts past the mark');
    // A WhereClause narrows what is read, so the run does not move the mark.
    await database()
      .admin('customers')
      .insert({ id: 15, name: 'Customer 15', changed_at: at(database(), 500) });
    const narrowed = await run('customers-by-id', '--where', 'id = 99');
    assert.equal(narrowed.code, 0, narrowed.stderr);
    assert.equal(statistics(narrowed.stdout).Mark, '14');
    const rest = await run('customers-by-id');
    assert.equal(statistics(rest.stdout).Created, 1);
  });

  test('records sharing one timestamp across pages of two are each read once', async () => {
    const admin = database().admin;
    // Seven records stamped alike, inserted out of key order: pages of two cut through them.
    const ids = [23, 20, 26, 21, 25, 22, 24];
    await admin('customers').insert(ids.map((id) => ({ id, name: `Customer ${id}`, changed_at: at(database(), 600) })));
    const tied = await run('customers');
    assert.equal(tied.code, 0, tied.stderr);
    // From the mark (08:00 + 400 min) less 10 minutes: 12 and 13 again (unchanged), 14 and 15
    // (new since, at 500), and the seven.
    assert.deepEqual(statistics(tied.stdout), {
      Read: 11,
      Created: 9,
      Updated: 0,
      Skipped: 2,
      Failed: 0,
      Unchanged: 2,
      Cursor: `changed_at: from ${iso(390)}, up to ${iso(600)}`,
      Mark: iso(600),
    });
    const written = await accounts();
    for (const id of ids) assert.equal(written[`C-${id}`], `Customer ${id}`);
  });

  test("a start narrowed by a parameter the sync's where uses keeps the mark, as one with a WhereClause does", async () => {
    const first = await run('customers-one');
    assert.equal(first.code, 0, first.stderr);
    const mark = statistics(first.stdout).Mark;
    assert.match(String(mark), /^\d+$/);
    await database()
      .admin('customers')
      .insert([1001, 1002].map((id) => ({ id, name: `Customer ${id}`, changed_at: at(database(), 700) })));
    // A webhook starting the sync for the one record it was told about.
    const one = await run('customers-one', '--param', 'id=1002');
    assert.equal(one.code, 0, one.stderr);
    assert.equal(statistics(one.stdout).Created, 1);
    assert.equal(statistics(one.stdout).Mark, mark, 'the mark does not pass 1001, which this run did not read');
    const rest = await run('customers-one');
    assert.equal(rest.code, 0, rest.stderr);
    assert.deepEqual([statistics(rest.stdout).Created, statistics(rest.stdout).Mark], [1, '1002']);
    const notes = (await database().admin('notes').whereIn('Number', [1001, 1002]).orderBy('Number')) as Array<{ Name: string }>;
    assert.deepEqual(
      notes.map((note) => note.Name),
      ['Customer 1001', 'Customer 1002'],
    );
  });

  test('a sync whose source changes starts over with a full read, not from the old mark', async () => {
    const before = await run('customers-by-id');
    assert.equal(before.code, 0, before.stderr);
    const mark = Number(statistics(before.stdout).Mark);
    // The same sync, given a where: records below the mark it never read from this source now.
    writeFileSync(
      join(directory, 'definitions.yaml'),
      definitions(database()).replace(
        'source: { system: crm, object: Customer, cursor: { field: id } }',
        `source: { system: crm, object: Customer, where: "id > 0", cursor: { field: id } }`,
      ),
    );
    try {
      const changed = await run('customers-by-id');
      assert.equal(changed.code, 0, changed.stderr);
      const counted = statistics(changed.stdout);
      assert.match(String(counted.Cursor), /^id: everything \(a full run\)/);
      const [{ count }] = (await database().admin('customers').count({ count: '*' })) as [{ count: number | string }];
      assert.equal(counted.Read, Number(count), 'every record read again');
      assert.equal(counted.Mark, String(mark));
      const again = await run('customers-by-id');
      assert.equal(statistics(again.stdout).Read, 0, 'then from its own mark');
    } finally {
      writeFileSync(join(directory, 'definitions.yaml'), definitions(database()));
    }
  });
});

test('syncline validate refuses a cursor that cannot work, at its place', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'syncline-cursor-invalid-'));
  try {
    writeFileSync(
      join(directory, 'definitions.yaml'),
      `kind: System
id: db
connector: sql
connection: { client: sqlite3, filename: db.sqlite }
objects:
  Item:
    table: items
    key: [id]
    fields: { id: { type: Integer }, name: { type: String }, changed_at: { type: DateTime } }
---
kind: System
id: files
connector: file
connection: { directory: files }
objects:
  Row: { path: rows.csv, key: [id], fields: { id: { type: Integer } } }
---
kind: Sync
id: unknown-field
source: { system: db, object: Item, cursor: { field: changed } }
target: { system: db, object: Item }
mapping: '{ "id": id }'
---
kind: Sync
id: text-field
source: { system: db, object: Item, cursor: { field: name } }
target: { system: db, object: Item }
mapping: '{ "id": id }'
---
kind: Sync
id: key-look-back
source: { system: db, object: Item, cursor: { field: id, lookBack: 5m } }
target: { system: db, object: Item }
mapping: '{ "id": id }'
---
kind: Sync
id: file-source
source: { system: files, object: Row, cursor: { field: id } }
target: { system: db, object: Item }
mapping: '{ "id": id }'
`,
    );
    const result = await runCli(['validate', directory]);
    assert.equal(result.code, 1, result.stdout);
    const lines = result.stdout.split('\n');
    const line = (id: string) => lines.find((text) => text.includes(`Sync/${id}:`)) ?? `(no line for ${id}: ${result.stdout})`;
    assert.match(
      line('unknown-field'),
      /definitions\.yaml:20:\d+: Sync\/unknown-field: source\.cursor\.field: source db\/Item has no field 'changed' \(it has: id, name, changed_at\)/,
    );
    assert.match(
      line('text-field'),
      /definitions\.yaml:26:\d+: Sync\/text-field: source\.cursor\.field: 'name' of source db\/Item is String; a cursor needs/,
    );
    assert.match(line('key-look-back'), /definitions\.yaml:32:\d+: Sync\/key-look-back: source\.cursor\.lookBack: 'id' is an Integer key/);
    assert.match(
      line('file-source'),
      /definitions\.yaml:38:\d+: Sync\/file-source: source\.cursor: system 'files' uses the file connector, which cannot have the system itself filter the records it reads/,
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
