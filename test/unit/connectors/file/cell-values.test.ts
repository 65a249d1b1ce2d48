/**
 * CSV cells as values: the shortcuts of cell-values.ts give exactly what decodeValue gives, for any
 * text; an empty unquoted cell is null and a quoted empty cell the empty string, on reading
 * (csv-parse's cast) and on writing (row-writers.ts), so that values survive a round trip.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { stringify } from 'csv-stringify/sync';
import { cellDecoder, cellOf } from '../../../../connectors/file/cell-values.js';
import { cellsOf } from '../../../../connectors/file/csv-rows.js';
import { fileOptions } from '../../../../connectors/file/file-object.js';
import { csvWriter } from '../../../../connectors/file/row-writers.js';
import { checkFieldValue, decodeValue } from '../../../../connectors/records/field-values.js';
import type { FieldType } from '../../../../definitions/types.js';

const TYPES: FieldType[] = ['String', 'Integer', 'Number', 'Boolean', 'Date', 'DateTime', 'Json'];

/** Cells that look like the common values, and their near misses. */
const cells = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.stringMatching(/^-?[0-9]{1,20}(\.[0-9]{0,17})?$/),
  fc.constantFrom(
    '0',
    '-0',
    '-0.0',
    '007',
    '1e3',
    ' 1',
    '1 ',
    '+5',
    'true',
    'false',
    'TRUE',
    't',
    '2024-02-28',
    '2024-02-30',
    '2024-13-01',
  ),
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10)),
);

test('the shortcuts of each type give exactly what decodeValue gives', () => {
  for (const type of TYPES) {
    const decode = cellDecoder(type);
    fc.assert(
      fc.property(cells, (cell) => {
        assert.deepStrictEqual(decode(cell), decodeValue(type, cell), `${type} of ${JSON.stringify(cell)}`);
      }),
      { numRuns: 2000 },
    );
    assert.equal(decode(null), null);
  }
});

const cast = (value: string, context: { quoting: boolean }) => (value === '' && !context.quoting ? null : value);

test('an empty unquoted cell reads as null, a quoted empty cell as the empty string', () => {
  assert.deepEqual(parse('a,"",,b\n', { cast }), [['a', '', null, 'b']]);
  assert.deepEqual(parse('"",\n', { cast }), [['', null]]);
});

test('cells read from their raw text tell null from "" exactly as a cast per cell does, whatever the quoting', () => {
  const cell = fc.constantFrom<string | null>(null, '', 'a', '"', ';', '\n', 'x"y', ' ', '""', 'a;"b"');
  fc.assert(
    fc.property(
      fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 5 }),
      fc.boolean(),
      (rows, quoteAll) => {
        const width = rows[0]!.length;
        const table = rows.map((row) => Array.from({ length: width }, (_, at) => row[at] ?? null));
        // A line of one null cell is blank, which CSV cannot tell from no line: give such tables a second column.
        const text = stringify(width === 1 ? table.map((row) => [...row, 'z']) : table, {
          delimiter: ';',
          quoted: quoteAll,
          quoted_match: /^$/,
        });
        const expected = parse(text, { delimiter: ';', cast }) as unknown[][];
        const raw = parse(text, { delimiter: ';', raw: true }) as unknown as Array<{ raw: string; record: string[] }>;
        assert.deepStrictEqual(
          raw.map((record) => cellsOf(record, ';', '"')),
          expected,
          text,
        );
      },
    ),
    { numRuns: 2000 },
  );
});

test('written cells read back as they were: null, empty, quotes, delimiters, line breaks, unicode', () => {
  const options = fileOptions({ delimiter: ';' }, { key: [], fields: {}, path: 'a.csv' });
  const writer = csvWriter(options);
  const rows = [
    ['x', '', null, 'say "hi"', 'a;b', 'line 1\nline 2', ' spaced ', 'Zoë 🙂'],
    [null, null, '', '', ';', '"', '\r\n', '0'],
  ];
  const text = Buffer.concat([writer.start(false, ['1', '2', '3', '4', '5', '6', '7', '8']), writer.rows(rows)]).toString('utf8');
  const read = parse(text, { cast, delimiter: ';' }) as unknown[][];
  assert.deepEqual(read.slice(1), rows);
});

test('values become cells in their canonical text, Json as JSON text', () => {
  assert.equal(cellOf('Integer', 42), '42');
  assert.equal(cellOf('Number', 1234.5), '1234.5');
  assert.equal(cellOf('Boolean', false), 'false');
  assert.equal(cellOf('Json', { a: [1, 'two'] }), '{"a":[1,"two"]}');
  assert.equal(cellOf('Json', 'text'), '"text"');
  assert.equal(cellOf('String', ''), '');
  assert.equal(cellOf('Date', null), null);
  for (const [type, value] of [
    ['Integer', -12],
    ['Number', 0.1],
    ['Boolean', true],
    ['Date', '2001-02-03'],
    ['DateTime', '2024-12-31T22:59:58.123Z'],
    ['Json', { nested: { list: [1, 'two', null] }, flag: true }],
    ['Json', 'just text'],
    ['String', 'line 1\nline 2'],
  ] as Array<[FieldType, unknown]>) {
    const checked = checkFieldValue(type, value, { label: 'x' });
    assert.deepEqual(cellDecoder(type)(cellOf(type, checked)), checked, `${type} ${JSON.stringify(value)}`);
  }
});
