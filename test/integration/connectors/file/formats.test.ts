/**
 * The file connector's formats on real files: globs read across several files in path order,
 * encodings, delimiters and byte order marks (kept on a rewrite), header-less CSV, column names,
 * what a rewrite keeps that the object does not declare, values that do not fit their type, and
 * malformed files — each refused naming the file and line, never quoting it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { parseExpression } from '../../../../definitions/expression/index.js';
import { parseOrder } from '../../../../definitions/order/parse-order.js';
import { fileWorld, readAll, type FileWorld } from './file-system-fixture.js';

const orderFields = { number: { type: 'Integer' }, customer: { type: 'String' }, total: { type: 'Number' } };

async function refused(action: () => Promise<unknown>, code: string, message: RegExp): Promise<ConnectorError> {
  try {
    await action();
  } catch (error) {
    assert.ok(error instanceof ConnectorError, String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, message);
    return error;
  }
  assert.fail('expected a refusal');
}

describe('globs', () => {
  let world: FileWorld;
  before(() => {
    world = fileWorld();
    world.put('inbox/orders-10.csv', 'number,customer,total\n100,ten,1\n101,ten,2\n');
    world.put('inbox/orders-2.csv', 'number,customer,total\n20,two,3\n');
    world.put('inbox/orders-1.csv', 'number,customer,total\n12,one,4\n11,one,5\n');
    world.put('inbox/notes.txt', 'not an order');
    world.put('inbox/sub/orders-3.csv', 'number,customer,total\n30,three,6\n');
  });
  after(() => world.close());
  const system = () =>
    world.system({
      Order: { path: 'inbox/orders-*.csv', key: ['number'], fields: orderFields },
      Everything: { path: 'inbox/**/orders-*.csv', key: ['number'], fields: orderFields },
    });

  test('the files of a glob are read in path order, the records of each in file order, in pages across files', async () => {
    const connection = world.connect(system());
    const pages: number[] = [];
    const numbers: unknown[] = [];
    for await (const page of connection.read('Order', { pageSize: 2 })) {
      pages.push(page.length);
      numbers.push(...page.map((record) => record.number));
    }
    assert.deepEqual(numbers, [12, 11, 100, 101, 20]);
    assert.deepEqual(pages, [2, 2, 1]);
    assert.deepEqual(
      (await readAll(connection, 'Everything')).map((record) => record.number),
      [12, 11, 100, 101, 20, 30],
    );
  });

  test('filters, ids, orders and counts take every file of the glob; writes are refused', async () => {
    const connection = world.connect(system());
    assert.equal(await connection.count('Order'), 5);
    assert.equal(await connection.count('Order', { filter: parseExpression("customer = 'one' OR total > 2") }), 3);
    assert.deepEqual(await readAll(connection, 'Order', { id: { number: '20' } }), [{ number: 20, customer: 'two', total: 3 }]);
    assert.match(
      connection.checkWrite('Order', { values: { number: 1, customer: 'x', total: 1 } }, 'create')?.message ?? '',
      /reads the files of a glob .*writes need path to name one file/,
    );
    assert.deepEqual(
      (await readAll(connection, 'Order', { order: parseOrder('total desc'), limit: 2 })).map((record) => record.number),
      [11, 12],
    );
  });

  test('a glob matching nothing reads nothing; a single file that does not exist yet reads as empty', async () => {
    const connection = world.connect(
      world.system({
        None: { path: 'outbox/*.csv', key: ['number'], fields: orderFields },
        Missing: { path: 'missing.csv', key: ['number'], fields: orderFields },
      }),
    );
    assert.deepEqual(await readAll(connection, 'None'), []);
    assert.deepEqual(await readAll(connection, 'Missing'), []);
    assert.equal(await connection.count('Missing'), 0);
  });
});

describe('encodings, delimiters, byte order marks and layouts', () => {
  let world: FileWorld;
  before(() => {
    world = fileWorld();
  });
  after(() => world.close());
  const people = { id: { type: 'Integer' }, name: { type: 'String' } };

  test('latin1 is read and written as latin1; a character it cannot hold is refused, naming the field', async () => {
    world.put('latin.csv', Buffer.from('id;name\n1;Zoë\n', 'latin1'));
    const connection = world.connect(
      world.system({ P: { path: 'latin.csv', key: ['id'], fields: people, encoding: 'latin1', delimiter: ';' } }),
    );
    assert.deepEqual(await readAll(connection, 'P'), [{ id: 1, name: 'Zoë' }]);
    await connection.write('P', { values: { id: 2, name: 'Müller' } });
    assert.equal(world.text('latin.csv', 'latin1'), 'id;name\n1;Zoë\n2;Müller\n');
    await refused(() => connection.write('P', { values: { id: 3, name: 'Łukasz' } }), 'invalid-value', /P\.name: .*encoding \(latin1\)/);
    assert.match(
      connection.checkWrite('P', { values: { id: 3, name: 'Łukasz' } }, 'create')?.message ?? '',
      /P\.name: .*encoding \(latin1\)/,
    );
    assert.equal(connection.checkWrite('P', { values: { id: 3, name: 'Müller' } }, 'create'), undefined);
  });

  test('UTF-16 with a byte order mark is read, and a rewrite keeps the mark; a UTF-8 mark is kept too', async () => {
    world.put('wide.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('id,name\r\n1,日本語\r\n', 'utf16le')]));
    world.put('marked.ndjson', `\uFEFF${JSON.stringify({ id: 1, name: 'a' })}\n`);
    const connection = world.connect(
      world.system({
        Wide: { path: 'wide.csv', key: ['id'], fields: people, encoding: 'utf16le', lineEnding: 'crlf' },
        Marked: { path: 'marked.ndjson', key: ['id'], fields: people },
      }),
    );
    assert.deepEqual(await readAll(connection, 'Wide'), [{ id: 1, name: '日本語' }]);
    await connection.write('Wide', { values: { id: 2, name: 'Zoë 🙂' } });
    const bytes = Buffer.from(world.text('wide.csv', 'latin1'), 'latin1');
    assert.deepEqual([...bytes.subarray(0, 2)], [0xff, 0xfe]);
    assert.equal(bytes.subarray(2).toString('utf16le'), 'id,name\r\n1,日本語\r\n2,Zoë 🙂\r\n');
    assert.deepEqual(await readAll(connection, 'Marked'), [{ id: 1, name: 'a' }]);
    await connection.write('Marked', { values: { id: 2, name: 'b' } });
    assert.equal(world.text('marked.ndjson'), '\uFEFF{"id":1,"name":"a"}\n{"id":2,"name":"b"}\n');
  });

  test('UTF-16 is split into cells as text: quotes, commas and line ends in cells, and characters whose bytes look like them', async () => {
    // U+2C00 is the bytes 00 2C in UTF-16LE (a comma byte), U+220A is 0A 22 (a line feed and a quote).
    const tricky = '\u2C00\u220A';
    const text = `id,name\r\n1,"a, ""b""\r\nc"\r\n2,${tricky}\r\n`;
    world.put('tricky.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const connection = world.connect(
      world.system({ T: { path: 'tricky.csv', key: ['id'], fields: people, encoding: 'utf16le', lineEnding: 'crlf' } }),
    );
    assert.deepEqual(await readAll(connection, 'T'), [
      { id: 1, name: 'a, "b"\r\nc' },
      { id: 2, name: tricky },
    ]);
    await connection.write('T', { values: { id: 2, name: `${tricky}!` } });
    assert.deepEqual(await readAll(connection, 'T'), [
      { id: 1, name: 'a, "b"\r\nc' },
      { id: 2, name: `${tricky}!` },
    ]);
  });

  test('a new file takes the bom and lineEnding settings; .tsv files are split at tabs', async () => {
    world.put('tabs.tsv', 'id\tname\n1\ta, b\n');
    const connection = world.connect(
      world.system({
        New: { path: 'out/new.csv', key: ['id'], fields: people, bom: true, lineEnding: 'crlf' },
        Tabs: { path: 'tabs.tsv', key: ['id'], fields: people },
      }),
    );
    await connection.write('New', { values: { id: 1, name: 'x' } });
    assert.equal(world.text('out/new.csv'), '\uFEFFid,name\r\n1,x\r\n');
    assert.deepEqual(await readAll(connection, 'Tabs'), [{ id: 1, name: 'a, b' }]);
  });

  test('a CSV without a header line is read by the columns the object names, and written without one', async () => {
    world.put('plain.csv', '1,Ada,x\n2,Bob,y\n');
    const connection = world.connect(
      world.system({ Plain: { path: 'plain.csv', key: ['id'], fields: people, header: false, columns: ['id', 'name', 'extra'] } }),
    );
    assert.deepEqual(await readAll(connection, 'Plain'), [
      { id: 1, name: 'Ada' },
      { id: 2, name: 'Bob' },
    ]);
    await connection.write('Plain', { values: { id: 2, name: 'Bobby' } });
    assert.equal(world.text('plain.csv'), '1,Ada,x\n2,Bobby,y\n');
  });

  test('columnNames reach columns and properties whose names cannot be field names', async () => {
    world.put('named.csv', 'Customer ID,Full Name\n7,Ada\n');
    world.put('named.json', JSON.stringify([{ 'customer-id': 7, 'full name': 'Ada' }]));
    const names = { id: 'Customer ID', name: 'Full Name' };
    const connection = world.connect(
      world.system({
        Csv: { path: 'named.csv', key: ['id'], fields: people, columnNames: names },
        Json: { path: 'named.json', key: ['id'], fields: people, columnNames: { id: 'customer-id', name: 'full name' } },
      }),
    );
    assert.deepEqual(await readAll(connection, 'Csv'), [{ id: 7, name: 'Ada' }]);
    assert.deepEqual(await readAll(connection, 'Json'), [{ id: 7, name: 'Ada' }]);
    await connection.write('Json', { values: { id: 7, name: 'Ada L.' } });
    assert.deepEqual(JSON.parse(world.text('named.json')), [{ 'customer-id': 7, 'full name': 'Ada L.' }]);
  });

  test('a rewrite keeps the columns and properties the object does not declare, and adds a column a write needs', async () => {
    world.put('wide-rows.csv', 'id,comment,name\n1,"keep, me",Ada\n2,,Bob\n');
    world.put('extra.ndjson', '{"id":1,"name":"Ada","tags":["x"],"nested":{"a":1}}\n');
    const connection = world.connect(
      world.system({
        Rows: { path: 'wide-rows.csv', key: ['id'], fields: { ...people, city: { type: 'String' } } },
        Extra: { path: 'extra.ndjson', key: ['id'], fields: people },
      }),
    );
    await connection.write('Rows', { values: { id: 2, city: 'Leeds' } });
    assert.equal(world.text('wide-rows.csv'), 'id,comment,name,city\n1,"keep, me",Ada,\n2,,Bob,Leeds\n');
    await connection.write('Extra', { values: { id: 1, name: 'Ada L.' } });
    assert.deepEqual(JSON.parse(world.text('extra.ndjson')), { id: 1, name: 'Ada L.', tags: ['x'], nested: { a: 1 } });
  });

  test('a value that does not fit its type is passed on as the file holds it, as every connector does', async () => {
    world.put('odd.csv', 'id,name,total\n1,Ada,abc\n2,Bob,2.5\n');
    const connection = world.connect(
      world.system({ Odd: { path: 'odd.csv', key: ['id'], fields: { ...people, total: { type: 'Number' } } } }),
    );
    assert.deepEqual(await readAll(connection, 'Odd'), [
      { id: 1, name: 'Ada', total: 'abc' },
      { id: 2, name: 'Bob', total: 2.5 },
    ]);
    assert.equal(await connection.count('Odd', { filter: parseExpression('total > 1') }), 1);
  });
});

describe('malformed files', () => {
  let world: FileWorld;
  before(() => {
    world = fileWorld();
    world.put('cells.csv', 'id,name\n1,secret-one\n2,secret-two,extra\n');
    world.put('quote.csv', 'id,name\n1,"secret\n');
    world.put('bad.ndjson', '{"id":1,"name":"a"}\n\n{"id":2,"name":secret}\n');
    world.put('array.ndjson', '{"id":1}\n[1,2]\n');
    world.put('bad.json', '[\n{"id":1},\n{"id": secret}\n]');
    world.put('object.json', '{"id":1}');
    world.put('semicolons.csv', 'id;name\n1;Ada\n');
    world.put('big.json', `[${'{"id":1},'.repeat(200)}{"id":2}]`);
  });
  after(() => world.close());
  const people = { id: { type: 'Integer' }, name: { type: 'String' } };
  const object = (path: string, extra: Record<string, unknown> = {}) => ({ path, key: ['id'], fields: people, ...extra });

  test('each is refused naming the system, object, file and line, never quoting it', async () => {
    const connection = world.connect(
      world.system(
        {
          Cells: object('cells.csv'),
          Quote: object('quote.csv'),
          Ndjson: object('bad.ndjson'),
          Array: object('array.ndjson'),
          Json: object('bad.json'),
          Object: object('object.json'),
          Semicolons: object('semicolons.csv'),
          Big: object('big.json'),
        },
        { maxJsonSize: '1kb' },
      ),
    );
    const cases: Array<[string, string, RegExp]> = [
      [
        'Cells',
        'definition-mismatch',
        /^system 'files', object Cells, file cells\.csv line 3: not valid CSV: the line has a different number of cells/,
      ],
      ['Quote', 'definition-mismatch', /file quote\.csv line 2: not valid CSV: a quoted cell is not closed/],
      ['Ndjson', 'definition-mismatch', /file bad\.ndjson line 3: not valid JSON/],
      ['Array', 'definition-mismatch', /file array\.ndjson line 2: expected a JSON object \(a record\), got an array/],
      ['Json', 'definition-mismatch', /file bad\.json( line 3)?: not valid JSON/],
      ['Object', 'definition-mismatch', /file object\.json: expected a JSON array of records/],
      [
        'Semicolons',
        'definition-mismatch',
        /file semicolons\.csv: the header line has no column 'id' for the key .*is the delimiter right\?/,
      ],
      ['Big', 'too-large', /file big\.json: the JSON file has 1810 bytes, more than the 1 kB of connection\.maxJsonSize/],
    ];
    for (const [name, code, message] of cases) {
      const error = await refused(() => readAll(connection, name), code, message);
      assert.doesNotMatch(error.message, /secret/, name);
      assert.doesNotMatch(JSON.stringify(error.details), /secret/, name);
      assert.equal(error.cause, undefined, `${name}: nothing of the file travels along, not even as cause`);
    }
  });

  test('a write to a malformed file is refused the same way, and leaves it as it was', async () => {
    const connection = world.connect(world.system({ Cells: object('cells.csv') }));
    await refused(() => connection.write('Cells', { values: { id: 9, name: 'x' } }), 'definition-mismatch', /cells\.csv line 3/);
    assert.equal(world.text('cells.csv'), 'id,name\n1,secret-one\n2,secret-two,extra\n');
  });
});
