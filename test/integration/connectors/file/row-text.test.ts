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
