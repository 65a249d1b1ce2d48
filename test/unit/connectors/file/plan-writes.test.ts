/**
 * A batch of writes replayed in memory (plan-writes.ts) means what the same writes one after
 * another mean: a later write finds what an earlier one created or changed, a create gets the
 * largest key plus one, a key may not be taken twice, several matches refuse, and a refused write
 * changes nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WriteRequest, WriteResult } from '../../../../connectors/connection.js';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { fileObjects } from '../../../../connectors/file/file-object.js';
import { Lookups, planWrites } from '../../../../connectors/file/plan-writes.js';
import { JsonLayout, type JsonRow } from '../../../../connectors/file/row-layout.js';
import { prepareWrite } from '../../../../connectors/file/write-records.js';
import type { SystemDefinition } from '../../../../definitions/types.js';

const system = {
  kind: 'System',
  id: 'shop',
  connector: 'file',
  connection: { directory: '.' },
  queries: {},
  objects: {
    Order: {
      path: 'orders.ndjson',
      key: ['id'],
      fields: { id: { type: 'Integer' }, email: { type: 'String' }, total: { type: 'Number' } },
      groups: { addresses: { types: ['ship', 'bill'], fields: { city: { type: 'String' } } } },
    },
  },
} as unknown as SystemDefinition;
const object = fileObjects(system).get('Order')!;
const layout = new JsonLayout(object);

/** The file after the batch, and each write's answer. */
function run(rows: JsonRow[], requests: WriteRequest[]): { rows: JsonRow[]; results: Array<WriteResult | string> } {
  const prepared = requests.map((request) => {
    try {
      return prepareWrite(object, request);
    } catch (error) {
      if (error instanceof ConnectorError) return error;
      throw error;
    }
  });
  const written = prepared.map((write) => (write instanceof ConnectorError ? undefined : write));
  const lookups = new Lookups([...written.map((write) => write?.find), ...written.map((write) => write?.key)], 'id');
  const kept = new Map<number, JsonRow>();
  rows.forEach((row, index) => {
    if (lookups.visit(index, (field) => layout.value(row, field))) kept.set(index, row);
  });
  const plan = planWrites(object, layout, prepared, lookups, kept, 'id');
  return {
    rows: [...rows.map((row, index) => plan.changed.get(index) ?? row), ...plan.added],
    results: plan.results.map((result) => (result instanceof ConnectorError ? `${result.code}: ${result.message}` : result)),
  };
}

const ROWS: JsonRow[] = [
  { id: 1, email: 'a@x', total: 10, extra: 'kept' },
  { id: 7, email: 'b@x', total: 20 },
  { id: 3, email: 'b@x', total: 30 },
];

test('updates by key keep what the row holds besides; creates get the largest key plus one', () => {
  const { rows, results } = run(ROWS, [{ values: { id: 1, total: 11 } }, { values: { email: 'new@x' } }, { values: { email: 'newer@x' } }]);
  assert.deepEqual(results, [
    { action: 'updated', key: { id: 1 } },
    { action: 'created', key: { id: 8 } },
    { action: 'created', key: { id: 9 } },
  ]);
  assert.deepEqual(rows[0], { id: 1, email: 'a@x', total: 11, extra: 'kept' });
  assert.deepEqual(rows.slice(3), [
    { id: 8, email: 'new@x', total: null },
    { id: 9, email: 'newer@x', total: null },
  ]);
});

test('a later write finds what an earlier one of the batch created or changed', () => {
  const { rows, results } = run(ROWS, [
    { match: { email: 'c@x' }, values: { total: 1 } },
    { match: { email: 'c@x' }, values: { total: 2 } },
    { match: { email: 'a@x' }, values: { email: 'd@x' } },
    { match: { email: 'd@x' }, values: { total: 4 } },
    { match: { email: 'a@x' }, values: { total: 5 } },
  ]);
  assert.deepEqual(results, [
    { action: 'created', key: { id: 8 } },
    { action: 'updated', key: { id: 8 } },
    { action: 'updated', key: { id: 1 } },
    { action: 'updated', key: { id: 1 } },
    { action: 'created', key: { id: 9 } },
  ]);
  assert.deepEqual(
    rows.map((row) => [row.id, row.email, row.total]),
    [
      [1, 'd@x', 4],
      [7, 'b@x', 20],
      [3, 'b@x', 30],
      [8, 'c@x', 2],
      [9, 'a@x', 5],
    ],
  );
});

test('several matches, a taken key and bad values refuse that write alone', () => {
  const { rows, results } = run(ROWS, [
    { match: { email: 'b@x' }, values: { total: 0 } },
    { match: { email: 'z@x' }, values: { id: 7, total: 0 } },
    { match: { email: 'a@x' }, values: { id: 3 } },
    { values: { id: 'x' } },
    { values: { id: 2, total: 2 }, groups: { addresses: { ship: { city: 'Leeds' } } } },
    { values: { id: 2 }, groups: { addresses: { bill: { city: 'York' } } } },
  ]);
  assert.match(String(results[0]), /^rejected: Order: more than one record matches email/);
  assert.match(String(results[1]), /^rejected: Order: another record has the same key \(id\)/);
  assert.match(String(results[2]), /^rejected: Order: another record has the same key/);
  assert.match(String(results[3]), /^invalid-value: Order\.id: expected a whole number/);
  assert.deepEqual(results.slice(4), [
    { action: 'created', key: { id: 2 } },
    { action: 'updated', key: { id: 2 } },
  ]);
  assert.deepEqual(rows.slice(0, 3), ROWS, 'the refused writes changed nothing');
  assert.deepEqual(rows[3], { id: 2, email: null, total: 2, addresses: { ship: { city: 'Leeds' }, bill: { city: 'York' } } });
});

test('onMatch skip leaves the record found as it is and answers its key', () => {
  const { rows, results } = run(ROWS, [{ match: { email: 'a@x' }, values: { total: 99 }, onMatch: 'skip' }]);
  assert.deepEqual(results, [{ action: 'skipped', key: { id: 1 } }]);
  assert.deepEqual(rows, ROWS);
});

test('a match on a value of another type finds it as the field reads it: "7" finds 7', () => {
  const { results } = run(ROWS, [{ match: { id: '7' }, values: { total: 21 } }]);
  assert.deepEqual(results, [{ action: 'updated', key: { id: 7 } }]);
});
