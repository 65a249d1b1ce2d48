/**
 * `writeMany` of the sql connector on every database: each request means what `write` means. Most
 * tests run the same requests through `write` (one at a time, on one table) and `writeMany` (one
 * batch, on a twin table) and expect the same answers — results, or errors with the same code and
 * message — in request order, and the same rows afterwards: creates and updates mixed, failures in
 * the middle of multi-row chunks (NOT NULL, CHECK, unique, invalid values), keys repeated within a
 * batch, batches larger than the chunk sizes. The CRM fixture covers typed groups, generated keys
 * and read-only fields.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Knex } from 'knex';
import type { Connection, RecordData, WriteRequest, WriteResult } from '../../../../connectors/connection.js';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import * as sqlConnector from '../../../../connectors/sql/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import { describeEachDatabase, type TestDatabase } from '../../../support/databases.js';
import { readAll } from '../conformance.js';
import { createCrm, crmSystem, tableCounts } from './sql-crm.js';

type Answer = WriteResult | { code: string; message: string };

/** A table of gadgets whose constraints only the database knows: name NOT NULL, qty ≥ 0 (CHECK), email unique. */
async function createGadgets(database: TestDatabase, table: string): Promise<void> {
  await database.admin.schema.createTable(table, (t: Knex.CreateTableBuilder) => {
    const code = t.string('code', 40).primary();
    if (database.engine === 'mariadb') code.collate('utf8mb4_bin');
    t.string('name', 100).notNullable();
    t.integer('qty').notNullable().defaultTo(0);
    t.string('email', 100).unique();
    t.boolean('active');
    t.check('?? >= 0', ['qty'], `${table}_qty`);
  });
}

function gadgetSystem(database: TestDatabase, table: string): SystemDefinition {
  return {
    kind: 'System',
    id: 'shop',
    connector: 'sql',
    connection: database.connection,
    objects: {
      Gadget: {
        table,
        key: ['code'],
        // name is not declared required: the database's NOT NULL refuses a missing one.
        fields: {
          code: { type: 'String', required: true, maxLength: 40 },
          name: { type: 'String' },
          qty: { type: 'Integer' },
          email: { type: 'String' },
          active: { type: 'Boolean' },
        },
      },
    },
    queries: {},
  } as unknown as SystemDefinition;
}

function answerOf(outcome: WriteResult | ConnectorError): Answer {
  return outcome instanceof ConnectorError ? { code: outcome.code, message: outcome.message } : outcome;
}

async function oneByOne(connection: Connection, object: string, requests: readonly WriteRequest[]): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const request of requests) {
    try {
      answers.push(await connection.write(object, request));
    } catch (error) {
      assert.ok(error instanceof ConnectorError, `write threw ${String(error)}`);
      answers.push(answerOf(error));
    }
  }
  return answers;
}

async function batched(connection: Connection, object: string, requests: readonly WriteRequest[]): Promise<Answer[]> {
  const outcomes = await connection.writeMany(object, requests);
  assert.equal(outcomes.length, requests.length);
  return outcomes.map(answerOf);
}

async function rowsOf(admin: Knex, table: string): Promise<unknown[]> {
  const rows = (await admin(table).select('code', 'name', 'qty', 'email', 'active').orderBy('code')) as Array<Record<string, unknown>>;
  return rows.map((row) => ({ ...row, active: row.active === null ? null : Boolean(row.active) }));
}

const gadget = (code: string, extra: RecordData = {}): WriteRequest => ({ values: { code, name: `Gadget ${code}`, qty: 1, ...extra } });

await describeEachDatabase('sql writeMany', (database) => {
  let single: Connection;
  let batch: Connection;
  let crm: Connection;

  before(async () => {
    await createGadgets(database(), 'gadgets_single');
    await createGadgets(database(), 'gadgets_batch');
    await createCrm(database());
    const context = { baseDirectory: database().baseDirectory };
    single = sqlConnector.createConnection(gadgetSystem(database(), 'gadgets_single'), context);
    batch = sqlConnector.createConnection(gadgetSystem(database(), 'gadgets_batch'), context);
    crm = sqlConnector.createConnection(crmSystem(database()), context);
  });
  after(async () => {
    await Promise.all([single?.close(), batch?.close(), crm?.close()]);
  });

  /** Runs the requests both ways and expects the same answers and the same rows. */
  async function sameAsWrite(requests: readonly WriteRequest[]): Promise<Answer[]> {
    const expected = await oneByOne(single, 'Gadget', requests);
    const actual = await batched(batch, 'Gadget', requests);
    for (const [index, answer] of expected.entries())
      assert.deepEqual(actual[index], answer, `request ${index}: ${JSON.stringify(requests[index])}`);
    assert.deepEqual(await rowsOf(database().admin, 'gadgets_batch'), await rowsOf(database().admin, 'gadgets_single'));
    return actual;
  }

  test('an empty batch answers nothing and touches nothing', async () => {
    assert.deepEqual(await batch.writeMany('Gadget', []), []);
    assert.deepEqual(await batch.writeMany('Nope', []), []);
  });

  test('creates and updates mixed: results in request order, as write gives them', async () => {
    await sameAsWrite([gadget('A1'), gadget('A2', { email: 'a2@example.com' }), gadget('A3', { active: true })]);
    const answers = await sameAsWrite([
      { values: { code: 'A2', qty: 5 } },
      gadget('A4'),
      { match: { email: 'a2@example.com' }, values: { name: 'Second by email' } },
      { values: { code: 'A5', name: 'No qty given: the column default' } },
      gadget('A6', { qty: '7' }),
      { match: { code: 'A7' }, values: { name: 'Created by match' } },
      { values: { code: 'A1', active: 'false' } },
    ]);
    assert.deepEqual(
      answers.map((answer) => ('action' in answer ? [answer.action, answer.key.code] : answer.code)),
      [
        ['updated', 'A2'],
        ['created', 'A4'],
        ['updated', 'A2'],
        ['created', 'A5'],
        ['created', 'A6'],
        ['created', 'A7'],
        ['updated', 'A1'],
      ],
    );
  });

  test('onMatch skip: a record found is answered skipped with its key and left as it is; one not found is created', async () => {
    await sameAsWrite([gadget('S1', { name: 'kept', email: 's1@example.com' }), gadget('S2', { name: 'kept too' })]);
    const answers = await sameAsWrite([
      { match: { code: 'S1' }, values: { name: 'not written' }, onMatch: 'skip' },
      { match: { email: 's1@example.com' }, values: { qty: 9 }, onMatch: 'skip' },
      { match: { code: 'S3' }, values: { name: 'created' }, onMatch: 'skip' },
      { match: { code: 'S3' }, values: { name: 'created, then found' }, onMatch: 'skip' },
      { match: { code: 'S2' }, values: { name: 'updated' } },
    ]);
    assert.deepEqual(
      answers.map((answer) => ('action' in answer ? [answer.action, answer.key.code] : answer.code)),
      [
        ['skipped', 'S1'],
        ['skipped', 'S1'],
        ['created', 'S3'],
        ['skipped', 'S3'],
        ['updated', 'S2'],
      ],
    );
    assert.deepEqual(
      (await rowsOf(database().admin, 'gadgets_batch'))
        .filter((row) => String((row as { code: string }).code).startsWith('S'))
        .map((row) => (row as { name: string }).name),
      ['kept', 'updated', 'created'],
    );
  });

  /** Counts the UPDATEs the database makes on both gadget tables, by code, through a trigger. */
  async function countUpdates(): Promise<(code: string) => Promise<number>> {
    const { admin, engine } = database();
    if (!(await admin.schema.hasTable('gadget_updates'))) {
      await admin.schema.createTable('gadget_updates', (t: Knex.CreateTableBuilder) => t.string('code', 40));
      for (const table of ['gadgets_single', 'gadgets_batch']) {
        if (engine === 'postgres') {
          await admin.raw(`CREATE FUNCTION ${table}_seen() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN INSERT INTO gadget_updates (code) VALUES (NEW.code); RETURN NEW; END $$`);
          await admin.raw(`CREATE TRIGGER ${table}_seen AFTER UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_seen()`);
        } else if (engine === 'sqlite') {
          await admin.raw(
            `CREATE TRIGGER ${table}_seen AFTER UPDATE ON ${table} BEGIN INSERT INTO gadget_updates (code) VALUES (NEW.code); END`,
          );
        } else {
          await admin.raw(
            `CREATE TRIGGER ${table}_seen AFTER UPDATE ON ${table} FOR EACH ROW INSERT INTO gadget_updates (code) VALUES (NEW.code)`,
          );
        }
      }
    }
    return async (code) => Number((await admin('gadget_updates').where({ code }).count({ n: '*' }))[0]!.n);
  }

  test('leaveUnchanged: a record found that already holds the values is answered unchanged and not written', async () => {
    const updates = await countUpdates();
    await sameAsWrite([
      gadget('U1', { email: 'u1@example.com', active: true }),
      gadget('U2', { qty: 3 }),
      gadget('U3'),
      gadget('U4', { email: null }),
    ]);
    const leave = (request: WriteRequest): WriteRequest => ({ ...request, leaveUnchanged: true });
    const answers = await sameAsWrite([
      // The same values, as the field types compare them: '1' is the Integer 1, 'true' the Boolean true.
      leave({ values: { code: 'U1', name: 'Gadget U1', qty: '1', active: 'true' } }),
      // Found by another field, holding the value set.
      leave({ match: { email: 'u1@example.com' }, values: { qty: 1 } }),
      // A different value, text compared exactly: case counts.
      leave({ values: { code: 'U2', name: 'gadget U2' } }),
      // null over null is no change; over a value it is one.
      leave({ values: { code: 'U4', email: null } }),
      leave({ values: { code: 'U3', email: null, qty: null } }),
      // Not found: created.
      leave({ values: { code: 'U5', name: 'new' } }),
      // Without the flag, the same values are written again.
      { values: { code: 'U1', name: 'Gadget U1' } },
    ]);
    assert.deepEqual(
      answers.map((answer) => ('action' in answer ? [answer.action, answer.key.code] : answer.code)),
      [
        ['unchanged', 'U1'],
        ['unchanged', 'U1'],
        ['updated', 'U2'],
        ['unchanged', 'U4'],
        // qty is NOT NULL: null is a change, refused by the database as for any write.
        'rejected',
        ['created', 'U5'],
        ['updated', 'U1'],
      ],
    );
    // Both tables: one UPDATE of U1 (the write without the flag) and one of U2 each; none of U4.
    assert.deepEqual([await updates('U1'), await updates('U2'), await updates('U4')], [2, 2, 0]);
  });

  test('failures in the middle of a batch fail only those records, with the errors write gives', async () => {
    await sameAsWrite([gadget('B1', { email: 'b1@example.com' }), gadget('B2'), gadget('B3')]);
    const answers = await sameAsWrite([
      gadget('B10'),
      gadget('B11', { name: null }), // NOT NULL, in the middle of a multi-row INSERT
      gadget('B12'),
      gadget('B13', { qty: -1 }), // CHECK
      gadget('B14', { email: 'b1@example.com' }), // unique
      gadget('B15', { qty: 'many' }), // invalid value, refused before the database
      { values: { code: 'B1', qty: 3 } },
      { values: { code: 'B2', qty: -5 } }, // CHECK, in the middle of updates
      { values: { code: 'B3', email: 'b1@example.com' } }, // unique, on update
      { values: { code: 'B3', nope: 1 } }, // unknown field
      gadget('B16', { code: 'x'.repeat(41) }),
      { values: { code: 'B2', qty: 9 } },
      gadget('B17'),
    ]);
    assert.deepEqual(
      answers.map((answer) => ('action' in answer ? answer.action : answer.code)),
      [
        'created',
        'rejected',
        'created',
        'rejected',
        'rejected',
        'invalid-value',
        'updated',
        'rejected',
        'rejected',
        'unknown-field',
        'invalid-value',
        'updated',
        'created',
      ],
    );
    assert.match((answers[1] as { message: string }).message, /a required value is missing/);
    assert.match((answers[3] as { message: string }).message, /check constraint/);
  });

  test('a key repeated within a batch behaves as if the writes ran in order', async () => {
    await sameAsWrite([
      gadget('C1', { qty: 1 }),
      { values: { code: 'C1', qty: 2 } },
      { values: { code: 'C1', name: 'renamed' } },
      gadget('C2', { email: 'c2@example.com' }),
      { match: { email: 'c2@example.com' }, values: { qty: 4 } }, // finds what the previous create made
      { values: { code: 'C2', email: 'c2-new@example.com' } },
      { match: { email: 'c2@example.com' }, values: { code: 'C3', name: 'the old address is free again' } },
      { match: { email: 'c2-new@example.com' }, values: { qty: 8 } },
      gadget('C4', { qty: -1 }), // fails…
      { values: { code: 'C4', qty: 1 } }, // …so this one finds nothing and needs a name
      gadget('C5', { name: null }),
      gadget('C5'),
    ]);
  });

  test('a match finding several records is refused alone', async () => {
    await sameAsWrite([
      gadget('D1', { active: true, qty: 10 }),
      gadget('D2', { active: true, qty: 10 }),
      gadget('D3', { active: false, qty: 10 }),
    ]);
    await sameAsWrite([
      { match: { qty: 10, active: true }, values: { name: 'x' } },
      { match: { qty: 10, active: false }, values: { name: 'only one' } },
      { match: { name: 'Gadget D2' }, values: { qty: '11' } },
    ]);
  });

  test('a batch larger than the chunks: 1,200 creates, then 1,200 updates with failures spread through', async () => {
    const creates = Array.from({ length: 1200 }, (_, index) =>
      gadget(`E${String(index).padStart(4, '0')}`, { qty: index, email: `e${index}@example.com`, active: index % 2 === 0 }),
    );
    const created = await sameAsWrite(creates);
    assert.ok(created.every((answer) => 'action' in answer && answer.action === 'created'));
    const updates = creates.map((request, index) => ({
      values: {
        code: request.values.code,
        qty: index % 97 === 5 ? -1 : index + 1,
        ...(index % 101 === 7 ? { email: 'e0@example.com' } : {}),
      },
    }));
    const answers = await sameAsWrite(updates);
    const failed = answers.filter((answer) => !('action' in answer)).length;
    assert.equal(failed, updates.filter((_, index) => index % 97 === 5 || index % 101 === 7).length);
  });

  test('updates of every kind of column in one batch store what write stores (Json, text holding JSON, numbers, dates)', async () => {
    const createKinds = async (table: string) =>
      database().admin.schema.createTable(table, (t: Knex.CreateTableBuilder) => {
        t.string('code', 40).primary();
        // A String field over a json column: the database parses the text it is given.
        if (database().engine === 'postgres') t.jsonb('raw');
        else t.text('raw');
        t.json('doc');
        t.float('score');
        t.date('born');
        t.string('note', 100);
      });
    await createKinds('kinds_single');
    await createKinds('kinds_batch');
    const system = (table: string) =>
      ({
        kind: 'System',
        id: 'kinds',
        connector: 'sql',
        connection: database().connection,
        objects: {
          Kind: {
            table,
            key: ['code'],
            fields: {
              code: { type: 'String', required: true },
              raw: { type: 'String' },
              doc: { type: 'Json' },
              score: { type: 'Number' },
              born: { type: 'Date' },
              note: { type: 'String' },
            },
          },
        },
        queries: {},
      }) as unknown as SystemDefinition;
    const context = { baseDirectory: database().baseDirectory };
    const [one, many] = [
      sqlConnector.createConnection(system('kinds_single'), context),
      sqlConnector.createConnection(system('kinds_batch'), context),
    ];
    try {
      const codes = Array.from({ length: 30 }, (_, index) => `K${String(index).padStart(2, '0')}`);
      const rounds: WriteRequest[][] = [
        codes.map((code, index) => ({ values: { code, note: `first ${index}`, score: index / 4, born: '2024-02-29' } })),
        // Updates of plain columns only: these go as one statement where the engine batches them.
        codes.map((code, index) => ({
          values: {
            code,
            note: index % 3 === 0 ? null : `second ${index}`,
            score: index * 1.5,
            born: `2025-01-0${String((index % 9) + 1)}`,
          },
        })),
        // Updates touching the json columns, twenty in a row, then plain ones.
        codes.map((code, index) =>
          index < 20
            ? { values: { code, raw: `{"n": ${index}, "s": "x"}`, doc: { list: [index, 'two'], text: '{"not": "parsed"}' } } }
            : { values: { code, note: `third ${index}` } },
        ),
        // The same again under leaveUnchanged, the Json properties in another order, the numbers
        // and dates spelled as text: unchanged as each type compares, by write and writeMany alike.
        codes.map((code, index) => ({
          leaveUnchanged: true,
          values:
            index < 20
              ? { code, doc: { text: '{"not": "parsed"}', list: [index, 'two'] }, score: String(index * 1.5) }
              : { code, note: `third ${index}`, born: new Date(`2025-01-0${String((index % 9) + 1)}T00:00:00Z`) },
        })),
      ];
      let last: string[] = [];
      for (const requests of rounds) {
        const expected = (await oneByOne(one, 'Kind', requests)).map((answer) => JSON.stringify(answer));
        const actual = (await batched(many, 'Kind', requests)).map((answer) => JSON.stringify(answer));
        assert.deepEqual(actual, expected);
        last = actual;
        const rows = async (connection: Connection) =>
          (await readAll(connection, 'Kind')).records.sort((a, b) => String(a.code).localeCompare(String(b.code)));
        assert.deepEqual(await rows(many), await rows(one));
      }
      assert.deepEqual(
        last.map((answer) => (JSON.parse(answer) as WriteResult).action),
        codes.map(() => 'unchanged'),
      );
      const [sample] = (await readAll(many, 'Kind')).records.filter((record) => record.code === 'K04');
      assert.equal(sample?.note, 'second 4');
      assert.deepEqual(sample?.doc, { list: [4, 'two'], text: '{"not": "parsed"}' });
      assert.equal(sample?.score, 6);
      assert.deepEqual(JSON.parse(String(sample?.raw)), { n: 4, s: 'x' });
    } finally {
      await Promise.all([one.close(), many.close()]);
    }
  });

  test('typed groups are upserted per record; a bad entry fails only its record, wholly', async () => {
    const before = await tableCounts(database().admin);
    const outcomes = await crm.writeMany('Customer', [
      { values: { name: 'Grouped one' }, groups: { addresses: { main: { city: 'Oslo' }, invoice: { street: '1 Bill St' } } } },
      { values: { name: 'Bad group' }, groups: { addresses: { home: { city: 'x' } } } },
      { values: { id: 1 }, groups: { addresses: { main: { city: 'Bergen' } } } },
      { values: { name: 'Grouped two' }, groups: { addresses: { invoice: { zip: '0150' } } } },
      { values: { name: 'Bad field' }, groups: { addresses: { main: { planet: 'Mars' } } } },
    ]);
    const [one, bad, updated, two, badField] = outcomes;
    assert.ok(bad instanceof ConnectorError && bad.code === 'invalid-value' && /'home' is not one of its types/.test(bad.message));
    assert.ok(badField instanceof ConnectorError && badField.code === 'unknown-field');
    assert.deepEqual(updated, { action: 'updated', key: { id: 1 } });
    const read = async (id: unknown) => (await readAll(crm, 'Customer', { id: { id } })).records[0]!;
    assert.ok(one !== undefined && two !== undefined && !(one instanceof ConnectorError) && !(two instanceof ConnectorError));
    assert.deepEqual((await read(one.key.id)).addresses, {
      main: { street: null, city: 'Oslo', zip: null, country: null },
      invoice: { street: '1 Bill St', city: null, zip: null, country: null },
    });
    assert.deepEqual((await read(two.key.id)).addresses, { invoice: { street: null, city: null, zip: '0150', country: null } });
    assert.equal(((await read(1)).addresses as Record<string, RecordData>).main?.city, 'Bergen');
    const afterwards = await tableCounts(database().admin);
    assert.equal(afterwards.customers, before.customers! + 2, 'the records whose entries failed were rolled back');
  });

  test('generated keys are returned for each create, in order', async () => {
    const outcomes = await crm.writeMany(
      'Customer',
      Array.from({ length: 30 }, (_, index) => ({ values: { name: `Generated ${index}`, score: index } })),
    );
    const ids = outcomes.map((outcome) => {
      assert.ok(!(outcome instanceof ConnectorError), String(outcome));
      assert.equal(outcome.action, 'created');
      assert.equal(typeof outcome.key.id, 'number');
      return outcome.key.id as number;
    });
    assert.equal(new Set(ids).size, ids.length);
    for (const [index, id] of ids.entries()) {
      const record = (await readAll(crm, 'Customer', { id: { id } })).records[0];
      assert.deepEqual([record?.name, record?.score], [`Generated ${index}`, index]);
    }
  });

  test('read-only fields and objects are refused per request, as write refuses them', async () => {
    const requests: WriteRequest[] = [
      { values: { id: 999_999, name: 'x' } },
      { values: { name: 'Fine' } },
      { match: { id: 1 }, values: { id: 5, name: 'x' } },
      { match: { id: 2 }, values: { name: 'Renamed two' } },
    ];
    const expected: Array<string | undefined> = [];
    for (const request of requests.filter((_, index) => index % 2 === 0)) {
      try {
        await crm.write('Customer', request);
        expected.push(undefined);
      } catch (error) {
        expected.push((error as Error).message);
      }
    }
    const outcomes = await crm.writeMany('Customer', requests);
    assert.ok(outcomes[0] instanceof ConnectorError && outcomes[0].code === 'read-only' && outcomes[0].message === expected[0]);
    assert.ok(outcomes[2] instanceof ConnectorError && outcomes[2].code === 'read-only' && outcomes[2].message === expected[1]);
    assert.equal((outcomes[1] as WriteResult).action, 'created');
    assert.deepEqual(outcomes[3], { action: 'updated', key: { id: 2 } });
    const readOnly = await crm.writeMany('ReadOnlyCustomer', [{ values: { id: 1, name: 'x' } }, { values: { id: 2, name: 'y' } }]);
    assert.ok(
      readOnly.every(
        (outcome) => outcome instanceof ConnectorError && outcome.code === 'read-only' && /ReadOnlyCustomer/.test(outcome.message),
      ),
    );
    const unknown = await crm.writeMany('Nope', [{ values: {} }]);
    assert.ok(unknown[0] instanceof ConnectorError && unknown[0].code === 'unknown-object');
  });

  test('an unreachable system rejects the whole batch', async () => {
    const settings = database().connection;
    const broken =
      settings.client === 'sqlite3'
        ? { ...settings, filename: 'missing/nothing.sqlite' }
        : { ...settings, url: String(settings.url).replace(/:(5432|3306)\//, ':1/') };
    const unreachable = sqlConnector.createConnection(gadgetSystem({ ...database(), connection: broken }, 'gadgets_batch'), {
      baseDirectory: database().baseDirectory,
    });
    try {
      await assert.rejects(
        unreachable.writeMany('Gadget', [gadget('Z1')]),
        (error: unknown) => error instanceof ConnectorError && error.code === 'unavailable',
      );
    } finally {
      await unreachable.close();
    }
  });
});
