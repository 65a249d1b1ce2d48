/**
 * What a file's text means and keeps, through the connection: "" and an empty cell told apart on
 * every line (after blank lines too), UTF-16LE CSV read as text, and a rewrite that copies every
 * row it did not change byte for byte — CSV, NDJSON and a JSON array's elements.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileWorld, readAll, type FileWorld } from './file-system-fixture.js';

const fields = { id: { type: 'Integer' }, name: { type: 'String' }, note: { type: 'String' } };

describe('a CSV file with blank lines', () => {
  let world: FileWorld;
  before(() => (world = fileWorld()));
  after(() => world.close());

  test('"" reads as an empty string and an empty cell as null, after blank lines as before them', async () => {
    for (const newline of ['\n', '\r\n']) {
      world.put('blank.csv', ['id,name,note', '1,"",', '', '', '2,,""', '', '3,"",""', '4,,', ''].join(newline));
      const connection = world.connect(world.system({ Row: { path: 'blank.csv', key: ['id'], fields } }));
      assert.deepEqual(await readAll(connection, 'Row'), [
        { id: 1, name: '', note: null },
        { id: 2, name: null, note: '' },
        { id: 3, name: '', note: '' },
        { id: 4, name: null, note: null },
      ]);
    }
  });
});

describe('a rewrite', () => {
  let world: FileWorld;
  before(() => (world = fileWorld()));
  after(() => world.close());
  const update = { values: { id: 2, note: 'changed' } };

  test('copies the CSV lines it does not change byte for byte: quoting, CRLF, blank lines, a last line without its end', async () => {
    const lines = ['id,name,note', '1,"Ada","x"', '', '2,Grace,', '3,"Al ""the"" pal", 1.50 ', '4,\xe9,'];
    world.put('kept.csv', Buffer.from(lines.join('\r\n'), 'latin1'));
    const connection = world.connect(world.system({ Row: { path: 'kept.csv', key: ['id'], fields, encoding: 'latin1' } }));
    assert.deepEqual(await connection.write('Row', update), { action: 'updated', key: { id: 2 } });
    assert.deepEqual(await connection.write('Row', { values: { id: 5, name: 'new' } }), { action: 'created', key: { id: 5 } });
    // The blank line before the changed row goes with it.
    const expected = ['id,name,note', '1,"Ada","x"', '2,Grace,changed', '3,"Al ""the"" pal", 1.50 ', '4,\xe9,', '5,new,', ''];
    // New and changed lines take the file's line end (CRLF), not the object's default (LF).
    assert.equal(world.text('kept.csv', 'latin1'), expected.join('\r\n'));
  });

  test('copies NDJSON lines as they were, bytes that are not UTF-8 too', async () => {
    const original = Buffer.concat([
      Buffer.from('{"id": 1, "name": "Ada", "total": 1.0}\n\n{"id":2,"name":"Grace"}\r\n{ "id" : 3, "name": "'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('", "extra": [1e3] }'),
    ]);
    world.put('kept.ndjson', original);
    const connection = world.connect(
      world.system({ Row: { path: 'kept.ndjson', key: ['id'], fields: { ...fields, total: { type: 'Number' } } } }),
    );
    assert.deepEqual(await connection.write('Row', update), { action: 'updated', key: { id: 2 } });
    const after = Buffer.from(world.text('kept.ndjson', 'latin1'), 'latin1');
    // The blank line before the changed row goes with it; the last line gets its line end.
    const changed = Buffer.from('{"id":2,"name":"Grace","note":"changed"}\n');
    const first = original.subarray(0, original.indexOf('\n') + 1);
    const third = original.subarray(original.indexOf('{ "id" : 3'));
    assert.deepEqual(after, Buffer.concat([first, changed, third, Buffer.from('\n')]));
  });

  test("keeps the text of a JSON array's elements it does not change", async () => {
    world.put('kept.json', '[\n  {"id": 1, "total": 1.50},\n  {"id": 2},\n  {"id": 3, "name": "\\u00e9\\"]"}\n]\n');
    const connection = world.connect(
      world.system({ Row: { path: 'kept.json', key: ['id'], fields: { ...fields, total: { type: 'Number' } } } }),
    );
    assert.deepEqual(await connection.write('Row', update), { action: 'updated', key: { id: 2 } });
    assert.equal(
      world.text('kept.json'),
      '[\n{"id": 1, "total": 1.50},\n{"id":2,"note":"changed"},\n{"id": 3, "name": "\\u00e9\\"]"}\n]\n',
    );
  });
});
