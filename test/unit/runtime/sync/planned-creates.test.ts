/**
 * PlannedCreates: what a dry run would create, found again by a later record — by batched match
 * values, or by match.where in memory, narrowed by an index that must never leave out a record the
 * where holds for: any two values the evaluator finds equal share a key, and the indexed search
 * finds exactly what evaluating the where on every record finds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RecordData } from '../../../../connectors/connection.js';
import { compareValues, evaluateCondition, parseExpression, resolvePath } from '../../../../definitions/expression/index.js';
import { PlannedCreates, equalityKeys } from '../../../../runtime/sync/planned-creates.js';

const values: unknown[] = [
  null,
  undefined,
  0,
  1,
  2,
  1.5,
  -0,
  7n,
  7,
  '7',
  ' 7 ',
  '7.0',
  '007',
  'abc',
  'ABC',
  '',
  true,
  false,
  'true',
  'TRUE',
  'false',
  '1',
  '0',
  'yes',
  new Date('2024-01-05T10:00:00Z'),
  '2024-01-05T10:00:00Z',
  '2024-01-05T11:00:00+01:00',
  '2024-01-05',
  new Date('2024-01-05T00:00:00Z'),
  { a: 1 },
  [1],
];

test('two values the evaluator finds equal always share a key', () => {
  for (const a of values) {
    for (const b of values) {
      if (compareValues(a, b) !== 0) continue;
      const shared = equalityKeys(a).filter((key) => equalityKeys(b).includes(key));
      assert.ok(shared.length > 0, `${String(a)} = ${String(b)} share no key: ${equalityKeys(a)} / ${equalityKeys(b)}`);
    }
  }
  assert.deepEqual(equalityKeys(null), []);
  assert.deepEqual(equalityKeys({ a: 1 }), []);
});

const records: RecordData[] = [
  { id: 1, email: 'Ada@example.com', score: 10, active: true },
  { id: 2, email: 'bob@example.com', score: '10', active: 1 },
  { id: 3, email: 'ada@EXAMPLE.com', score: 7, active: false },
  { id: 4, email: null, score: null, active: null },
  { id: 5, email: 'cy@example.com', score: 10.0, active: 'true' },
];

function planned(where: string): PlannedCreates {
  const creates = new PlannedCreates({ kind: 'search', where: parseExpression(where) });
  for (const record of records) creates.add(record, {});
  return creates;
}

test('a search finds what evaluating match.where on every planned record finds, in the order planned', () => {
  const cases: Array<[string, Record<string, unknown>, number[]]> = [
    ['tolower(email) = tolower(#email#)', { email: 'ADA@example.COM' }, [1, 3]],
    ['#email# = email', { email: 'bob@example.com' }, [2]],
    ['score = #score# AND active = #active#', { score: '10', active: 'true' }, [1, 5]],
    ['score = #score#', { score: 10 }, [1, 2, 5]],
    ['email = #email# OR id = #id#', { email: 'cy@example.com', id: 1 }, [1, 5]],
    ['score > #score#', { score: 7 }, [1, 2, 5]],
    ['email = #email#', { email: null }, []],
    ['tolower(email) = tolower(#email#) AND id <> #not#', { email: 'ada@example.com', not: 1 }, [3]],
  ];
  for (const [where, placeholders, ids] of cases) {
    const ast = parseExpression(where);
    const scope = (record: RecordData) => ({
      field: (path: readonly string[]) => resolvePath(record, path),
      placeholder: (path: readonly string[]) => resolvePath(placeholders, path),
    });
    const found = planned(where).matching(ast, (path) => resolvePath(placeholders, path));
    const everyOne = records.filter((record) => evaluateCondition(ast, scope(record)));
    assert.deepEqual(found, everyOne, `${where}: the index left out or added a record`);
    assert.deepEqual(
      found.map((record) => record.id),
      ids,
      where,
    );
  }
});

test('a batched match finds a planned record by its match values, compared by the field type', () => {
  const creates = new PlannedCreates({ kind: 'batched', equalities: [{ field: 'number', type: 'Integer', placeholder: ['number'] }] });
  const record = { number: 7, name: 'seven' };
  creates.add(record, { number: 7 });
  assert.equal(creates.withValues(['7']), record);
  assert.equal(creates.withValues([8]), undefined);
  assert.deepEqual(
    creates.matching(parseExpression('number = #number#'), () => 7),
    [],
    'a batched plan is not searched',
  );
});
