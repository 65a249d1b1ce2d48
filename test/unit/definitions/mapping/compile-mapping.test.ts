import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileMapping, evaluateMappingNow, isCompiledMapping, NOT_NOW } from '../../../../definitions/mapping/compile-mapping.js';
import { assertSame } from './differential.js';

const person = {
  id: 7,
  first_name: 'Ana',
  last_name: 'Lima',
  email: 'Ana.Lima@Example.COM',
  city: null,
  tags: ['a', 'b'],
  address: { street: 'Rua', zip: '1000', lines: [{ n: 1 }] },
};

/** Each case: expression, inputs; `compiled` says whether the closures must answer (true) or defer. */
interface Case {
  text: string;
  inputs: unknown[];
  compiled?: boolean;
  bindings?: Record<string, unknown>;
}

function cases(group: string, list: Case[]): void {
  describe(group, () => {
    for (const c of list) {
      it(c.text, async () => {
        assert.ok(isCompiledMapping(compileMapping(c.text)), `${c.text} should be in the compiled subset`);
        for (const input of c.inputs) {
          const answered = await assertSame(c.text, input, c.bindings);
          if (c.compiled !== undefined)
            assert.equal(answered, c.compiled, `${c.text} on ${JSON.stringify(input)}: compiled answered ${answered}`);
        }
      });
    }
  });
}

cases('object constructors', [
  {
    text: '{ "ContactNumber": "P-" & $string(id), "FullName": first_name & " " & last_name, "Email": $lowercase(email), "City": city }',
    inputs: [person, {}, { id: 1 }],
    compiled: true,
  },
  { text: '{ "a": missing, "b": 1 }', inputs: [{}], compiled: true },
  { text: '{ "b": 1, "a": 2, "10": 3, "2": 4, "__proto__": 5 }', inputs: [{}], compiled: true },
  {
    text: '{ "Address": { "Street": address.street, "Zip": address.zip }, "Empty": { "x": nothing } }',
    inputs: [person, {}],
    compiled: true,
  },
  { text: '{ "whole": address }', inputs: [person], compiled: true },
  { text: '{ "t": tags }', inputs: [person], compiled: false },
]);

cases('paths', [
  { text: 'address.street', inputs: [person, {}, { address: 'text' }, { address: null }, 'text', 5, null], compiled: true },
  {
    text: 'a.b.c',
    inputs: [{ a: { b: { c: 0 } } }, { a: { b: null } }, { a: { b: [1] } }, { a: [{ b: { c: 1 } }, { b: { c: 2 } }] }, { a: [] }],
  },
  { text: 'address.lines.n', inputs: [person], compiled: false },
  { text: '`first name`', inputs: [{ 'first name': 'x' }], compiled: true },
  { text: 'x', inputs: [[{ x: 1 }, { x: 2 }], [], { x: [1, [2, 3]] }, { x: [[1]] }] },
  { text: 'constructor', inputs: [{}], compiled: true },
  { text: 'a.b', inputs: [{ a: { _jsonata_lambda: true, b: 1 } }, { a: Object.assign(() => 1, { b: 2 }) }] },
]);

cases('literals, & and arithmetic', [
  { text: '"x" & 1 & true & null', inputs: [{}], compiled: true },
  {
    text: 'a & b',
    inputs: [
      {},
      { a: 1, b: 'x' },
      { a: 0.1 },
      { a: -0 },
      { a: 1e21 },
      { a: 123456789.12345679 },
      { a: 1 / 3 },
      { a: 1e-7 },
      { a: 2 ** 53 + 2 },
      { a: Number.NaN },
      { a: Number.POSITIVE_INFINITY },
      { a: { x: 1 } },
      { a: [1] },
    ],
  },
  { text: '0.1 + 0.2', inputs: [{}], compiled: true },
  { text: '$string(0.1 + 0.2)', inputs: [{}], compiled: true },
  {
    text: 'a + b',
    inputs: [
      { a: 1, b: 2 },
      { a: 1 },
      {},
      { a: '1', b: 2 },
      { a: true, b: 1 },
      { a: null, b: 1 },
      { a: Number.NaN, b: 1 },
      { a: 1e308, b: 1e308 },
      { a: 'x' },
    ],
  },
  {
    text: 'a - b * c / d % e',
    inputs: [
      { a: 1, b: 2, c: 3, d: 4, e: 5 },
      { a: 1, b: 2, c: 3, d: 0, e: 5 },
    ],
  },
  { text: '1 / 0', inputs: [{}] },
  { text: '-a', inputs: [{ a: 1 }, { a: 0 }, {}, { a: '1' }, { a: null }, { a: Number.NaN }] },
  { text: '-(1 / 0)', inputs: [{}] },
  { text: '(a; b)', inputs: [{ a: 1, b: 2 }] },
  { text: '(a + 1; b)', inputs: [{ a: 'x', b: 2 }] },
]);

cases('comparisons and logic', [
  {
    text: 'a = b',
    inputs: [
      { a: 1, b: 1 },
      { a: 1, b: '1' },
      { a: null, b: null },
      { a: 1 },
      {},
      { a: Number.NaN, b: Number.NaN },
      { a: -0, b: 0 },
      { a: { x: 1 }, b: { x: 1 } },
      { a: { x: 1 }, b: 1 },
    ],
  },
  { text: 'a != b', inputs: [{ a: 1, b: 2 }, { a: 'x', b: 'x' }, { b: 1 }] },
  {
    text: 'a < b',
    inputs: [
      { a: 1, b: 2 },
      { a: 'b', b: 'a' },
      { a: 1, b: 'a' },
      { a: 1 },
      { a: null, b: 1 },
      { a: true, b: false },
      { a: Number.NaN, b: 1 },
    ],
  },
  { text: 'a <= b and b >= a or a > b', inputs: [{ a: 1, b: 2 }, { a: 3, b: 2 }, {}] },
  {
    text: 'a and b',
    inputs: [
      { a: 1, b: 'x' },
      { a: '', b: 1 },
      { a: 0 },
      { a: null },
      { a: Number.NaN, b: 1 },
      { a: {}, b: 1 },
      { a: [0], b: 1 },
      { a: 1, b: Number.POSITIVE_INFINITY },
    ],
  },
  { text: 'a or b', inputs: [{ a: 1 }, { b: 'x' }, {}, { a: Number.POSITIVE_INFINITY }] },
  { text: 'a ? "yes" : "no"', inputs: [{ a: 1 }, { a: 0 }, {}, { a: 'x' }, { a: {} }, { a: [] }] },
  { text: 'a ? "yes"', inputs: [{ a: 1 }, { a: 0 }] },
]);

cases('functions', [
  {
    text: '$string(a)',
    inputs: [
      { a: 1 },
      { a: -0 },
      { a: 1e21 },
      { a: 1.5e300 },
      { a: 0.000001 },
      { a: 'x' },
      { a: true },
      { a: null },
      {},
      { a: Number.NaN },
      { a: { b: 0.1 + 0.2 } },
      { a: [1, 2] },
    ],
  },
  {
    text: '$lowercase(a) & "|" & $uppercase(a)',
    inputs: [{ a: 'İSTANBUL ß Straße ǅ Σ ΌΣΟΣ' }, { a: 'ÀÉÎ' }, {}, { a: 5 }, { a: null }, { a: ['X'] }],
  },
  { text: '$lowercase(a)', inputs: [{}, { a: null }], compiled: undefined },
  { text: '$trim(a)', inputs: [{ a: '  a \t\n b  ' }, { a: '\u00a0x\u00a0' }, { a: ' ' }, { a: '' }, {}, { a: 1 }] },
  { text: '$length(a)', inputs: [{ a: '😀a' }, { a: '' }, {}, { a: 12 }] },
  {
    text: '$number(a)',
    inputs: [
      { a: '12' },
      { a: '-1.5e3' },
      { a: ' 12' },
      { a: 'x' },
      { a: '0x1F' },
      { a: '0x1z' },
      { a: '1e400' },
      { a: true },
      { a: false },
      { a: null },
      { a: 7 },
      {},
      { a: '' },
    ],
  },
  {
    text: '$substring(a, b)',
    inputs: [
      { a: 'héllo😀', b: 1 },
      { a: 'hello', b: -2 },
      { a: 'hello', b: -9 },
      { a: 'hello', b: 1.7 },
      { b: 1 },
      { a: 'x' },
      { a: 5, b: 1 },
    ],
  },
  {
    text: '$substring(a, b, c)',
    inputs: [
      { a: 'hello', b: 1, c: 2 },
      { a: 'hello', b: -3, c: 2 },
      { a: 'hello', b: 1, c: 0 },
      { a: 'hello', b: 1, c: -1 },
      { a: 'hello', b: 1 },
      { a: 'hello', b: 1, c: 'x' },
    ],
  },
  { text: '$exists(a) & $exists(b)', inputs: [{ a: null }, {}, { a: 0, b: '' }] },
  {
    text: '$boolean(a)',
    inputs: [{ a: 0 }, { a: 'x' }, { a: '' }, { a: null }, {}, { a: {} }, { a: { b: 1 } }, { a: [0, 1] }, { a: Number.NaN }],
  },
  { text: '$not(a)', inputs: [{ a: 0 }, { a: 'x' }, {}, { a: true }] },
  { text: '$round(a)', inputs: [{ a: 2.5 }, { a: 3.5 }, { a: -2.5 }, { a: -0.4 }, { a: 1e21 }, {}, { a: '2' }, { a: Number.NaN }] },
  {
    text: '$round(a, b)',
    inputs: [
      { a: 1.005, b: 2 },
      { a: 2.675, b: 2 },
      { a: 125, b: -1 },
      { a: 135, b: -1 },
      { a: 1.5e-10, b: 10 },
      { a: 1, b: 0 },
      { a: 1.25 },
    ],
  },
  { text: '$floor(a) & "," & $ceil(a) & "," & $abs(a)', inputs: [{ a: -1.5 }, { a: 2.5 }, { a: -0 }, {}, { a: 'x' }] },
  { text: '$floor(a)', inputs: [{ a: -0 }, { a: -0.5 }] },
]);

cases('variables', [
  {
    text: '$params.Region & "/" & $params.Missing',
    inputs: [{}],
    bindings: { params: Object.freeze(Object.assign(Object.create(null), { Region: 'EU' })) },
    compiled: true,
  },
  { text: '$params.Region', inputs: [{}], bindings: {}, compiled: true },
  { text: '$params', inputs: [{}], bindings: { params: { a: 1 } }, compiled: true },
  { text: '$params.a', inputs: [{}], bindings: { params: [{ a: 1 }, { a: 2 }] }, compiled: false },
  { text: '$other', inputs: [{}], compiled: true },
  { text: '$.a & $$.b', inputs: [{ a: 1, b: 2 }], compiled: true },
  { text: '$string(a)', inputs: [{ a: 1 }], bindings: { string: 'shadowed' }, compiled: false },
]);

describe('outside the subset', () => {
  for (const text of [
    '{ "a": 1, "a": 2 }',
    '{ k: 1 }',
    '{ "_jsonata_lambda": 1 }',
    'a[0]',
    'a.b[x > 1]',
    '*.a',
    '**.a',
    '$sum(a)',
    '$string()',
    '$lowercase(a, b)',
    '$count(a)',
    '$x := 1',
    'a in [1, 2]',
    '[a, b]',
    '[1..3]',
    'a{ "k": b }',
    '$now("[Y]")',
    'a ~> $lowercase()',
  ]) {
    it(`${text} stays JSONata's, with JSONata's results`, async () => {
      assert.equal(isCompiledMapping(compileMapping(text)), false);
      await assertSame(text, { a: [{ b: 1, x: 2 }], k: 'key' });
    });
  }
});

describe('$now and $millis', () => {
  it('give one instant per evaluation, as JSONata stamps each evaluate call', async () => {
    const mapping = compileMapping('{ "a": $now(), "b": $now(), "m": $millis(), "n": $millis() }');
    assert.ok(isCompiledMapping(mapping));
    const before = Date.now();
    const result = (await mapping.evaluate({})) as Record<string, unknown>;
    const after = Date.now();
    assert.equal(result.a, result.b);
    assert.equal(result.m, result.n);
    assert.equal(new Date(result.a as string).getTime(), result.m);
    assert.ok((result.m as number) >= before && (result.m as number) <= after);
    assert.match(result.a as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('are written as JSONata writes an instant', async () => {
    for (const millis of [0, 1, 999, 1_700_000_000_123, 253_402_300_799_999]) {
      assert.equal(new Date(millis).toISOString(), await compileMapping(`$fromMillis(${millis})`).evaluate({}));
    }
  });
});

describe('the Expression shape', () => {
  it('keeps syntax errors as JSONata throws them', () => {
    assert.throws(
      () => compileMapping('{ "a": '),
      (error: { code?: string; position?: number }) => error.code !== undefined && typeof error.position === 'number',
    );
  });

  it('answers through a callback, and after assign and registerFunction', async () => {
    const mapping = compileMapping('$string(a)');
    const viaCallback = await new Promise((resolve, reject) =>
      mapping.evaluate({ a: 1 }, undefined, (error, value) => (error ? reject(error) : resolve(value))),
    );
    assert.equal(viaCallback, '1');
    mapping.registerFunction('string', () => 'mine', '<x:s>');
    assert.equal(isCompiledMapping(mapping), false);
    assert.equal(await mapping.evaluate({ a: 1 }), 'mine');
    const assigned = compileMapping('$v');
    assigned.assign('v', 5);
    assert.equal(await assigned.evaluate({}), 5);
    assert.equal(evaluateMappingNow(assigned, {}), NOT_NOW);
  });

  it('leaves function values to JSONata', () => {
    for (const text of ['$string', '$substring(?, 1)', 'function($x) { $x }'])
      assert.equal(isCompiledMapping(compileMapping(text)), false, text);
  });

  it('gives its AST', () => {
    assert.equal((compileMapping('a').ast() as { type: string }).type, 'path');
  });
});

describe('a mapping that never ends', () => {
  it('recursing without a tail call fails with a stack overflow instead of growing the heap until the process dies', async () => {
    const mapping = compileMapping('($f := function($x){ 1 + $f($x) }; { "n": $f(1) })');
    await assert.rejects(mapping.evaluate({}), (error: { code?: string; message?: string }) => {
      assert.equal(error.code, 'D1011');
      assert.match(String(error.message), /Stack overflow.*non-terminating recursive function/);
      return true;
    });
  });

  it('looping forever stops at the time limit, and lets timers and I/O run meanwhile', async () => {
    const mapping = compileMapping('($f := function($x){ $f($x + 1) }; $f(1))', { timeout: 400, stack: 5_000 });
    let fired = 0;
    const timer = setInterval(() => (fired += 1), 20);
    try {
      const started = performance.now();
      await assert.rejects(mapping.evaluate({}), (error: { code?: string; message?: string }) => {
        assert.equal(error.code, 'D1012');
        assert.match(String(error.message), /Evaluation timeout after 400 milliseconds/);
        return true;
      });
      assert.ok(performance.now() - started < 5_000, 'stopped near its limit');
      // Starved of the event loop, the interval would not have fired at all.
      assert.ok(fired >= 3, `the interval fired ${fired} times during the evaluation`);
    } finally {
      clearInterval(timer);
    }
  });

  it('the default limits leave ordinary deep work alone', async () => {
    const mapping = compileMapping('($f := function($n){ $n = 0 ? 0 : 1 + $f($n - 1) }; { "depth": $f(200), "sum": $sum([1..100000]) })');
    assert.deepEqual({ ...((await mapping.evaluate({})) as object) }, { depth: 200, sum: 5000050000 });
  });
});
