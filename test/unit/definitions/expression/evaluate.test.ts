import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compareValues,
  evaluateCondition,
  evaluateTruth,
  likeMatches,
  parseExpression,
  recordScope,
  type Truth,
} from '../../../../definitions/expression/index.js';

/** Evaluates `source` against `record` (placeholders read the record too unless given). */
function holds(source: string, record: unknown = {}, placeholders?: unknown): boolean {
  return evaluateCondition(parseExpression(source), recordScope(record, placeholders ?? record));
}

function truth(source: string, record: unknown = {}): Truth {
  return evaluateTruth(parseExpression(source), recordScope(record));
}

describe('null and missing values', () => {
  it('treats a comparison with a missing value as unknown, which never matches', () => {
    assert.equal(truth('a = 1'), null);
    assert.equal(holds('a = 1'), false);
    assert.equal(holds('NOT a = 1'), false);
    assert.equal(holds('a <> 1'), false);
    assert.equal(holds('a = 1', { a: null }), false);
    assert.equal(holds('a = #p#', { a: 1 }), false);
  });

  it('reads the literal null as IS NULL / IS NOT NULL', () => {
    assert.equal(holds('a = null'), true);
    assert.equal(holds('a = null', { a: null }), true);
    assert.equal(holds('a = null', { a: 0 }), false);
    assert.equal(holds('a <> null', { a: '' }), true);
    assert.equal(holds('a ne null', {}), false);
    assert.equal(holds('null = a', {}), true);
    assert.equal(holds('null = null'), true);
    assert.equal(truth('a > null', { a: 1 }), null);
  });

  it('evaluates IS [NOT] NULL', () => {
    assert.equal(holds('a IS NULL'), true);
    assert.equal(holds('a IS NULL', { a: undefined }), true);
    assert.equal(holds('a IS NULL', { a: false }), false);
    assert.equal(holds('a IS NOT NULL', { a: '' }), true);
    assert.equal(holds('#x# IS NOT NULL', {}, { x: 0 }), true);
  });
});

describe('three-valued logic', () => {
  const values: Truth[] = [true, false, null];
  const kleeneAnd = (p: Truth, q: Truth): Truth => (p === false || q === false ? false : p === null || q === null ? null : true);
  const kleeneOr = (p: Truth, q: Truth): Truth => (p === true || q === true ? true : p === null || q === null ? null : false);

  for (const p of values) {
    for (const q of values) {
      it(`p=${p}, q=${q}`, () => {
        const record = { p, q };
        assert.equal(truth('p AND q', record), kleeneAnd(p, q));
        assert.equal(truth('p OR q', record), kleeneOr(p, q));
        assert.equal(truth('NOT p', record), p === null ? null : !p);
        assert.equal(holds('p AND q', record), kleeneAnd(p, q) === true);
        assert.equal(holds('NOT (p OR q)', record), kleeneOr(p, q) === false);
      });
    }
  }

  it('lets a known side decide despite an unknown one', () => {
    assert.equal(holds('missing = 1 OR b = 2', { b: 2 }), true);
    assert.equal(truth('missing = 1 AND b = 2', { b: 3 }), false);
    assert.equal(holds('NOT (missing = 1 AND b = 2)', { b: 3 }), true);
  });
});

describe('coercion', () => {
  it('compares numeric strings with numbers numerically', () => {
    assert.equal(holds('#total# > 0', { total: '5' }), true);
    assert.equal(holds('#total# > 0', { total: '-2.5' }), false);
    assert.equal(holds('#total# > 0', { total: ' 1e2 ' }), true);
    assert.equal(holds('n = 5', { n: '5.0' }), true);
    assert.equal(holds("n = '5'", { n: 5 }), true);
    assert.equal(holds("n < '10'", { n: 9 }), true);
    assert.equal(truth('#total# > 0', { total: 'abc' }), null);
    assert.equal(truth('#total# > 0', { total: '' }), null);
  });

  it('compares strings by code unit, case-sensitively', () => {
    assert.equal(holds("s = 'abc'", { s: 'abc' }), true);
    assert.equal(holds("s = 'abc'", { s: 'ABC' }), false);
    assert.equal(holds("s < 'b'", { s: 'a' }), true);
    assert.equal(holds("s < 'a'", { s: 'B' }), true);
    assert.equal(holds("s > '10'", { s: '9' }), true);
  });

  it('compares booleans with booleans, 1/0 and their string spellings', () => {
    assert.equal(holds('flag = true', { flag: true }), true);
    assert.equal(holds('flag = true', { flag: 'true' }), true);
    assert.equal(holds('flag = true', { flag: 'TRUE' }), true);
    assert.equal(holds('flag = true', { flag: 1 }), true);
    assert.equal(holds('flag = false', { flag: 0 }), true);
    assert.equal(holds("flag = 'false'", { flag: false }), true);
    assert.equal(holds('active = 1', { active: true }), true);
    assert.equal(truth('flag = true', { flag: 'yes' }), null);
    assert.equal(truth('flag = true', { flag: 2 }), null);
  });

  it('compares dates as instants', () => {
    const created = new Date('2024-01-31T10:00:00Z');
    assert.equal(holds('created >= 2024-01-31', { created }), true);
    assert.equal(holds('created < 2024-01-31', { created }), false);
    assert.equal(holds('created = 2024-01-31T10:00:00Z', { created }), true);
    assert.equal(holds('created = 2024-01-31T12:00:00+02:00', { created }), true);
    assert.equal(holds('created = 2024-01-31T10:00:00', { created }), true);
    assert.equal(holds("created = TIMESTAMP '2024-01-31 10:00:00'", { created: '2024-01-31 10:00:00' }), true);
    assert.equal(holds('created >= 2024-01-31', { created: '2024-01-31T10:00:00.000Z' }), true);
    assert.equal(holds('d = 2024-01-31', { d: '2024-01-31' }), true);
    assert.equal(holds("d BETWEEN DATE '2024-01-01' AND DATE '2024-12-31'", { d: '2024-06-15' }), true);
    assert.equal(holds('created > #since#', { created }, { since: '2024-01-01' }), true);
    assert.equal(truth('created > 2024-01-01', { created: 'yesterday' }), null);
    assert.equal(truth('created > 2024-01-01', { created: '2024-02-30' }), null);
    assert.equal(truth('created > 2024-01-01', { created: 1706695200000 }), null);
  });

  it('leaves objects and arrays unknown', () => {
    assert.equal(truth('a = 1', { a: [1] }), null);
    assert.equal(truth("a = 'x'", { a: { x: 1 } }), null);
    assert.equal(compareValues({}, {}), null);
    assert.equal(compareValues(10n, 10), 0);
    assert.equal(compareValues(Number.NaN, 1), null);
  });
});

describe('LIKE', () => {
  it('matches % and _ wildcards and literal text', () => {
    assert.equal(holds("name LIKE 'Jo%'", { name: 'John' }), true);
    assert.equal(holds("name LIKE 'Jo%'", { name: 'jo' }), false);
    assert.equal(holds("name LIKE '%oh%'", { name: 'John' }), true);
    assert.equal(holds("name LIKE 'J_hn'", { name: 'John' }), true);
    assert.equal(holds("name LIKE 'J_hn'", { name: 'Jhn' }), false);
    assert.equal(holds("name LIKE '%'", { name: '' }), true);
    assert.equal(holds("name LIKE ''", { name: '' }), true);
    assert.equal(holds("name LIKE 'a.c'", { name: 'abc' }), false);
    assert.equal(holds("name LIKE 'a.c'", { name: 'a.c' }), true);
    assert.equal(holds("name LIKE '(x)*[y]+'", { name: '(x)*[y]+' }), true);
    assert.equal(holds("name LIKE '%end'", { name: 'the end' }), true);
    assert.equal(holds("name LIKE '%end'", { name: 'ending' }), false);
    assert.equal(holds("name LIKE 'a%b%c'", { name: 'aXbYbZc' }), true);
  });

  it('treats characters as code points and honours ESCAPE', () => {
    assert.equal(holds("s LIKE 'a_b'", { s: 'a😀b' }), true);
    assert.equal(holds("s LIKE '100\\%' ESCAPE '\\'", { s: '100%' }), true);
    assert.equal(holds("s LIKE '100\\%' ESCAPE '\\'", { s: '1000' }), false);
    assert.equal(holds("s LIKE '100!%%' ESCAPE '!'", { s: '100% sure' }), true);
    assert.equal(holds("s LIKE 'a\\_'", { s: 'a\\x' }), true, 'without ESCAPE a backslash is an ordinary character');
  });

  it('handles NOT LIKE, numbers and missing values', () => {
    assert.equal(holds("name NOT LIKE 'Jo%'", { name: 'Mary' }), true);
    assert.equal(holds("name NOT LIKE 'Jo%'", {}), false);
    assert.equal(holds("id LIKE '12%'", { id: 1234 }), true);
    assert.equal(holds('name LIKE #pattern#', { name: 'abc', pattern: 'a%' }), true);
  });

  // A backtracking matcher would take longer than the age of the universe on these; the greedy
  // scan answers at once. A regression shows as a hung test, not as a wrong answer.
  it('answers patterns that make naive matchers backtrack', () => {
    const text = 'a'.repeat(20_000);
    assert.equal(likeMatches(text, '%a%a%a%a%a%a%a%a%a%a%b'), false);
    assert.equal(likeMatches(text, `${'_'.repeat(50)}%${'a'.repeat(50)}`), true);
  });
});

describe('IN and BETWEEN', () => {
  it('tests membership with SQL null rules', () => {
    assert.equal(holds("c IN ('A', 'B')", { c: 'B' }), true);
    assert.equal(holds("c IN ('A', 'B')", { c: 'C' }), false);
    assert.equal(holds('n IN (1, 2)', { n: '2' }), true);
    assert.equal(holds('n NOT IN (1, 2)', { n: 3 }), true);
    assert.equal(holds('n NOT IN (1, 2)', {}), false);
    assert.equal(truth('n IN (1, #missing#)', { n: 2 }), null);
    assert.equal(holds('n IN (1, #missing#)', { n: 1 }), true);
    assert.equal(holds('n IN (1, null)', {}), true, 'the literal null matches a missing value, as with = null');
  });

  it('tests inclusive ranges', () => {
    assert.equal(holds('n BETWEEN 1 AND 5', { n: 1 }), true);
    assert.equal(holds('n BETWEEN 1 AND 5', { n: 5 }), true);
    assert.equal(holds('n BETWEEN 1 AND 5', { n: '3' }), true);
    assert.equal(holds('n BETWEEN 1 AND 5', { n: 6 }), false);
    assert.equal(holds('n NOT BETWEEN 1 AND 5', { n: 6 }), true);
    assert.equal(holds('n NOT BETWEEN 1 AND 5', {}), false);
    assert.equal(truth('n BETWEEN 1 AND #hi#', { n: 3 }), null);
    assert.equal(truth('n BETWEEN 1 AND #hi#', { n: 0 }), false);
    assert.equal(holds("s BETWEEN 'a' AND 'c'", { s: 'b' }), true);
  });
});

describe('functions', () => {
  it('applies the OData string predicates case-sensitively', () => {
    assert.equal(holds("contains(Name, 'oh')", { Name: 'John' }), true);
    assert.equal(holds("contains(Name, 'OH')", { Name: 'John' }), false);
    assert.equal(holds("startswith(Name, 'Jo')", { Name: 'John' }), true);
    assert.equal(holds("endswith(Name, 'hn')", { Name: 'John' }), true);
    assert.equal(holds("endswith(Name, 'x')", { Name: 'John' }), false);
    assert.equal(truth("contains(Name, 'x')", {}), null);
    assert.equal(holds("NOT contains(Name, 'x')", {}), false);
    assert.equal(holds("contains(Name, '%')", { Name: 'John' }), false, 'contains is not LIKE');
  });

  it('computes value functions', () => {
    assert.equal(holds("tolower(Name) = 'john'", { Name: 'JoHN' }), true);
    assert.equal(holds("toupper(Name) = 'JOHN'", { Name: 'john' }), true);
    assert.equal(holds("trim(Name) = 'x'", { Name: '  x \n' }), true);
    assert.equal(holds('length(Name) = 3', { Name: 'a😀b' }), true);
    assert.equal(holds("contains(tolower(Name), 'oh')", { Name: 'JOHN' }), true);
    assert.equal(holds('length(Name) IS NULL', {}), true);
    assert.equal(holds('length(Name) IS NULL', { Name: { a: 1 } }), true);
  });
});

describe('bare values as conditions', () => {
  const cases: Array<[unknown, Truth]> = [
    [true, true],
    [false, false],
    [1, true],
    [-2.5, true],
    [0, false],
    [Number.NaN, null],
    ['yes', true],
    ['true', true],
    ['false', false],
    [' FALSE ', false],
    ['0', false],
    ['', false],
    [null, null],
    [undefined, null],
    [{}, null],
    [[1], null],
    [new Date(0), true],
    [0n, false],
  ];
  for (const [value, expected] of cases) {
    it(`reads ${typeof value === 'string' ? JSON.stringify(value) : String(value)} as ${expected}`, () => {
      assert.equal(truth('#flag#', { flag: value }), expected);
    });
  }

  it('combines bare values with logic', () => {
    assert.equal(holds('active AND NOT deleted', { active: 1, deleted: false }), true);
    assert.equal(holds('true'), true);
    assert.equal(holds('false OR #x#', { x: 'y' }), true);
  });
});

describe('data is never syntax', () => {
  const injection = "' OR 1=1 --";

  it('a placeholder holding SQL matches nothing', () => {
    const ast = parseExpression('Email = #Email#');
    const records = [{ Email: 'a@example.com' }, { Email: '' }, { Email: "x' OR '1'='1" }];
    for (const record of records) {
      assert.equal(evaluateCondition(ast, recordScope(record, { Email: injection })), false);
    }
    assert.equal(evaluateCondition(ast, recordScope({ Email: injection }, { Email: injection })), true, 'equal data is equal');
  });

  it('a field holding quotes, percent signs or hashes is compared as text', () => {
    assert.equal(holds("name = 'O''Brien'", { name: "O'Brien" }), true);
    assert.equal(holds("name LIKE 'a%'", { name: injection }), false);
    assert.equal(holds('name = #x#', { name: '#y#', x: '#y#', y: 'z' }), true);
    assert.equal(holds('#a# = #b#', { a: "') OR ('1'='1", b: 'x' }), false);
  });
});

describe('recordScope', () => {
  it('resolves nested paths, array indexes and separate placeholders', () => {
    const record = { address: { city: 'Oslo' }, items: [{ sku: 'A1' }] };
    assert.equal(holds("address.city = 'Oslo'", record), true);
    assert.equal(holds('address/city = #city#', record, { city: 'Oslo' }), true);
    assert.equal(holds("#items.0.sku# = 'A1'", record), true);
    assert.equal(holds("#address.city# = 'Oslo'", record, {}), false, 'explicit placeholders replace the record');
  });

  it('does not reach into prototypes', () => {
    assert.equal(holds('constructor IS NULL', {}), true);
    assert.equal(holds('#__proto__# IS NULL', {}), true);
    assert.equal(holds('#toString# IS NULL', {}), true);
    assert.equal(holds('a.length IS NULL', { a: 'text' }), true);
  });

  it('returns plain booleans', () => {
    assert.equal(typeof evaluateCondition(parseExpression('#x#'), recordScope({ x: 'y' })), 'boolean');
  });
});
