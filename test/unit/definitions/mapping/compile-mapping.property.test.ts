import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compileMapping, isCompiledMapping } from '../../../../definitions/mapping/compile-mapping.js';
import { assertSame } from './differential.js';

const RUNS = Number(process.env.MAPPING_PROPERTY_RUNS ?? 600);

// Few field names, so generated paths often meet the generated record's fields.
const FIELDS = ['a', 'b', 'c'];

const number = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noDefaultInfinity: true, noNaN: true }),
  fc.constantFrom(0, -0, 0.1, 0.2, 1e21, 1e-7, 2.5, -2.5, 1 / 3, 2 ** 53 + 2, 123456789.12345679),
);
const text = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('', ' a  b ', 'İß', 'ΣΑΣ', '😀x', '12', '-1.5e3', '0x1F', 'true'));

/** Expression text in the compiled subset (duplicate keys, which JSONata rejects, are a hand-written case). */
const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string; object: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...FIELDS, 'a.b', 'b.c.a', '$params.P', '$params.Q', '$.a', 'true', 'false', 'null'),
    number.map((n) => (Object.is(n, -0) ? '-0' : JSON.stringify(n))),
    text.map((s) => JSON.stringify(s)),
    fc
      .tuple(tie('expr'), fc.constantFrom('&', '+', '-', '*', '/', '%', '=', '!=', '<', '<=', '>', '>=', 'and', 'or'), tie('expr'))
      .map(([l, op, r]) => `(${l} ${op} ${r})`),
    tie('expr').map((e) => `-(${e})`),
    fc.tuple(tie('expr'), tie('expr'), fc.option(tie('expr'))).map(([c, t, e]) => (e === null ? `(${c} ? ${t})` : `(${c} ? ${t} : ${e})`)),
    fc
      .tuple(
        fc.constantFrom(
          'string',
          'lowercase',
          'uppercase',
          'trim',
          'length',
          'number',
          'exists',
          'boolean',
          'not',
          'round',
          'floor',
          'ceil',
          'abs',
        ),
        tie('expr'),
      )
      .map(([name, arg]) => `$${name}(${arg})`),
    fc.tuple(tie('expr'), tie('expr'), fc.option(tie('expr'))).map(([s, a, b]) => `$substring(${s}, ${a}${b === null ? '' : `, ${b}`})`),
    fc.tuple(tie('expr'), tie('expr')).map(([n, p]) => `$round(${n}, ${p})`),
    tie('object'),
  ),
  object: fc
    .uniqueArray(fc.tuple(fc.constantFrom('x', 'y', 'z', 'A', '1'), tie('expr')), { maxLength: 4, selector: ([key]) => key })
    .map((pairs) => `{ ${pairs.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(', ')} }`),
})).expr;

const scalar = fc.oneof(number, text, fc.boolean(), fc.constant(null), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY));
const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalar,
    scalar,
    fc.dictionary(fc.constantFrom(...FIELDS), tie('value'), { maxKeys: 3 }),
    fc.array(tie('value'), { maxLength: 3 }),
  ),
})).value;
const record = fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 3 });
const params = fc.record({ params: fc.dictionary(fc.constantFrom('P', 'Q'), fc.oneof(text, fc.constant('7'))) });

describe('compiled mappings against JSONata (property)', () => {
  it('give the same results, or both fail, for generated expressions and records', async () => {
    let compiled = 0;
    let answered = 0;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(expression, record, params, async (text, input, bindings) => {
        runs += 1;
        // Expressions always run through JSONata; most must run through the closures too.
        const inSubset = isCompiledMapping(compileMapping(text));
        if (inSubset) compiled += 1;
        if (await assertSame(text, input, bindings)) answered += 1;
      }),
      { numRuns: RUNS },
    );
    // The property means something only if the subset is exercised.
    assert.equal(compiled, runs, 'every generated expression is in the subset');
    assert.ok(answered > runs * 0.3, `the closures answered only ${answered} of ${runs}`);
  });

  it('agree on the benchmark mapping over generated people', async () => {
    const mapping =
      '{ "ContactNumber": "P-" & $string(id), "FullName": first_name & " " & last_name, "Email": $lowercase(email), "City": city }';
    const person = fc.record(
      {
        id: fc.oneof(fc.integer(), number, text),
        first_name: fc.oneof(text, fc.constant(null)),
        last_name: text,
        email: fc.oneof(text, fc.constant(null), fc.integer()),
        city: fc.oneof(text, fc.constant(null)),
      },
      { requiredKeys: ['id'] },
    );
    await fc.assert(
      fc.asyncProperty(person, async (input) => void (await assertSame(mapping, input))),
      { numRuns: RUNS },
    );
  });
});
