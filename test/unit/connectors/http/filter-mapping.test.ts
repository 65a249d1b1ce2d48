/**
 * Which filter terms become query parameters: top-level AND terms on a declared field and operator
 * (or one the declared operator serves, >= for >), with a constant of the field's own kind, in the
 * canonical form records carry — and nothing that could make the API answer fewer records than the
 * filter selects. LIKE patterns become regular expressions matching exactly the same texts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { equalityParameters, filterParameters, likeRegex, type FilterMapping } from '../../../../connectors/http/filter-mapping.js';
import { buildObjects } from '../../../../connectors/records/object-model.js';
import { likeMatches, parseExpression, resolvePath } from '../../../../definitions/expression/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';

const system = {
  kind: 'System',
  id: 'api',
  connector: 'http',
  connection: {},
  queries: {},
  objects: {
    Customer: {
      key: ['id'],
      fields: {
        id: { type: 'Integer' },
        name: { type: 'String' },
        score: { type: 'Number' },
        active: { type: 'Boolean' },
        birthday: { type: 'Date' },
        updated_at: { type: 'DateTime' },
        meta: { type: 'Json' },
      },
      groups: { addresses: { types: ['main'], fields: { city: { type: 'String' } } } },
    },
  },
} as unknown as SystemDefinition;
const object = buildObjects(system, { object: () => ({}), group: () => ({}) }).get('Customer')!;

const mapping = (field: string, op: FilterMapping['op'], param: string, more: Partial<FilterMapping> = {}): FilterMapping => ({
  field,
  path: field.split('.'),
  op,
  param,
  value: 'text',
  ...more,
});

const MAPPINGS: FilterMapping[] = [
  mapping('id', 'in', 'id'),
  mapping('name', '=', 'name'),
  mapping('name', '<>', 'name_ne'),
  mapping('name', 'contains', 'q'),
  mapping('name', 'startswith', 'name_like', { value: 'regex' }),
  mapping('name', 'like', 'name_like', { value: 'regex' }),
  mapping('score', '>=', 'score_gte'),
  mapping('score', '<=', 'score_lte'),
  mapping('active', '=', 'active'),
  mapping('birthday', '=', 'birthday'),
  mapping('birthday', '>', 'born_after'),
  mapping('updated_at', '>=', 'changed_since'),
  mapping('meta', '=', 'meta'),
  mapping('addresses.main.city', '=', 'city'),
];

const params = (filter: string, placeholders: Record<string, unknown> = {}) =>
  filterParameters(object, MAPPINGS, parseExpression(filter), (path) => resolvePath(placeholders, path));

test('top-level AND terms with a constant become their declared parameters', () => {
  assert.deepEqual(params("name = 'Ada' AND score >= 10 AND active = true"), { name: 'Ada', score_gte: '10', active: 'true' });
  assert.deepEqual(params("'Ada' = name"), { name: 'Ada' });
  assert.deepEqual(params('10 <= score'), { score_gte: '10' });
  assert.deepEqual(params('name = #n# AND (score <= 5)', { n: "O'Brien" }), { name: "O'Brien", score_lte: '5' });
  assert.deepEqual(params("addresses.main.city = 'Leeds'"), { city: 'Leeds' });
  assert.deepEqual(params('score BETWEEN 10 AND 20'), { score_gte: '10', score_lte: '20' });
});

test('a wider declared operator serves a narrower term: >= for >, <= for <, in for =', () => {
  assert.deepEqual(params('score > 10'), { score_gte: '10' });
  assert.deepEqual(params('score < 10'), { score_lte: '10' });
  assert.deepEqual(params('id = 7'), { id: '7' });
  // birthday has only '>': a >= term cannot use it (the day itself would be lost).
  assert.deepEqual(params('birthday >= 1990-01-01'), {});
  assert.deepEqual(params('birthday > 1990-01-01'), { born_after: '1990-01-01' });
});

test('IN lists repeat the parameter, or join it with the separator', () => {
  assert.deepEqual(params('id IN (1, 2, #x#)', { x: '3' }), { id: ['1', '2', '3'] });
  assert.deepEqual(filterParameters(object, [mapping('id', 'in', 'ids', { separator: ',' })], parseExpression('id IN (1, 2)')), {
    ids: '1,2',
  });
  // A value holding the separator would be split by the API into others: left to the memory check.
  const joined = [mapping('name', 'in', 'names', { separator: ',' }), mapping('name', '=', 'name')];
  assert.deepEqual(filterParameters(object, joined, parseExpression("name IN ('a', 'b,c')")), {});
  assert.deepEqual(filterParameters(object, joined, parseExpression("name IN ('a', 'b')")), { names: 'a,b' });
  assert.deepEqual(filterParameters(object, joined, parseExpression("name = 'b,c'")), { name: 'b,c' }, '= takes it as one value');
  assert.deepEqual(filterParameters(object, joined.slice(0, 1), parseExpression("name = 'b,c'")), {});
  assert.deepEqual(equalityParameters(object, joined.slice(0, 1), { name: 'b,c' }), {});
  assert.deepEqual(equalityParameters(object, joined.slice(0, 1), { name: 'b' }), { names: 'b' });
  assert.deepEqual(params('id IN (1, null)'), {}, 'null in a list means IS NULL');
  assert.deepEqual(params('id IN (1, #missing#)'), {});
  assert.deepEqual(params('id NOT IN (1, 2)'), {});
});

test('nothing is sent that could make the answer narrower than the filter', () => {
  const none = [
    "name = 'Ada' OR score > 1",
    "NOT (name = 'Ada')",
    'name = 0',
    'name = true',
    'name = 1990-05-17',
    "score = 'abc'",
    "active = 'yes'",
    'score = null',
    'score <> null',
    'name = #missing#',
    'score = #obj#',
    'name = email',
    "tolower(name) = 'ada'",
    "meta = 'x'",
    'birthday = 1990-05-17T00:00:00Z',
    "birthday = ' 1990-05-17'",
    "updated_at >= '2024-03-04T05:06:07Z'",
    "score LIKE '4%'",
    "name NOT LIKE 'A%'",
    "contains(name, '')",
    "name <> 'Ada' OR name = 'B'",
  ];
  for (const filter of none) assert.deepEqual(params(filter, { obj: { a: 1 } }), {}, filter);
});

test('values are sent as records carry them: numbers, booleans, dates and instants in canonical form', () => {
  assert.deepEqual(params("score >= '1e3'"), { score_gte: '1000' });
  assert.deepEqual(params('active = 1'), { active: 'true' });
  assert.deepEqual(params("active = 'FALSE'"), { active: 'false' });
  assert.deepEqual(params('birthday = 1990-05-17'), { birthday: '1990-05-17' });
  assert.deepEqual(params("birthday = '1990-05-17'"), { birthday: '1990-05-17' });
  assert.deepEqual(params('updated_at >= 2024-03-04T07:06:07.089+02:00'), { changed_since: '2024-03-04T05:06:07.089Z' });
  assert.deepEqual(params("updated_at >= '2024-03-04T05:06:07.089Z'"), { changed_since: '2024-03-04T05:06:07.089Z' });
});

test('text operators: contains as text, startswith and LIKE as anchored, escaped regular expressions', () => {
  assert.deepEqual(params("contains(name, 'a+b')"), { q: 'a+b' });
  // A term may fill more than one parameter: each holds for every record it selects.
  assert.deepEqual(params("name LIKE '%a+b%'"), { name_like: '^[\\s\\S]*a\\+b[\\s\\S]*$', q: 'a+b' });
  assert.deepEqual(params("startswith(name, 'A.')"), { name_like: '^A\\.' });
  assert.deepEqual(params("name LIKE 'A_c%' AND contains(name, 'x')"), {
    name_like: '^A(?:[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]|[^\\uD800-\\uDBFF])c[\\s\\S]*$',
    q: 'x',
  });
  // One term per parameter: the first that fills it.
  assert.deepEqual(params("startswith(name, 'A') AND name LIKE '%z'"), { name_like: '^A' });
});

test('the parameters of exact field values (an id, a match) use the = and in mappings', () => {
  assert.deepEqual(equalityParameters(object, MAPPINGS, { id: 7, name: 'Ada', score: 3, active: null }), { id: '7', name: 'Ada' });
});

test('a LIKE pattern as a regular expression matches exactly the texts LIKE matches', () => {
  const alphabet = fc.constantFrom('a', 'A', 'b', '%', '_', '!', '.', '*', '\\', '🙂', 'ë', '\n', '[', '$', '^', '(', '|');
  fc.assert(
    fc.property(
      fc.array(alphabet, { maxLength: 6 }),
      fc.array(alphabet, { maxLength: 8 }),
      fc.boolean(),
      (patternChars, textChars, escaped) => {
        const pattern = patternChars.join('');
        const text = textChars.join('');
        const escape = escaped ? '!' : null;
        const expected = likeMatches(text, pattern, escape);
        assert.equal(
          new RegExp(likeRegex(pattern, escape)).test(text),
          expected,
          `${JSON.stringify(text)} LIKE ${JSON.stringify(pattern)}`,
        );
        // An API matching without case (json-server's _like) answers at least as much.
        if (expected) assert.ok(new RegExp(likeRegex(pattern, escape), 'i').test(text));
      },
    ),
    { numRuns: 3000 },
  );
  // Found by the property above: one emoji is one character, and `__` asks for two.
  assert.equal(new RegExp(likeRegex('__', null)).test('🙂'), false);
  assert.equal(new RegExp(likeRegex('_', null)).test('🙂'), true);
  assert.equal(new RegExp(likeRegex('%__', null)).test('🙂'), false);
});

test('a list too long for a URL is left to memory; a short one is sent', () => {
  const mappings = [mapping('id', 'in', 'id'), mapping('name', 'in', 'name')];
  const list = (values: string[]) => parseExpression(`name IN (${values.map((value) => `'${value}'`).join(', ')})`);
  const long = Array.from({ length: 500 }, (_, index) => `a rather long account name ${index}`);
  assert.deepEqual(filterParameters(object, mappings, list(long)), {});
  assert.deepEqual(filterParameters(object, mappings, list(long.slice(0, 20))), { name: long.slice(0, 20) });
  const ids = parseExpression(`id IN (${Array.from({ length: 500 }, (_, index) => index).join(', ')})`);
  assert.equal((filterParameters(object, mappings, ids).id as string[]).length, 500);
});
