import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  evaluateCondition,
  evaluateTruth,
  ExpressionSyntaxError,
  formatExpression,
  parseExpression,
  recordScope,
  type Expression,
} from '../../../../definitions/expression/index.js';
import { withoutPositions } from './ast-helpers.js';

const RUNS = 1000;

/** Parses `source`; any failure must be a syntax error pointing inside the text. */
function parseOrSyntaxError(source: string): Expression | ExpressionSyntaxError {
  try {
    return parseExpression(source);
  } catch (error) {
    if (!(error instanceof ExpressionSyntaxError)) throw error;
    assert.ok(error.offset >= 0 && error.offset <= source.length, `offset ${error.offset} outside [0, ${source.length}]`);
    assert.ok(error.line >= 1 && error.column >= 1);
    assert.ok(error.message.length > 0);
    return error;
  }
}

/** When `source` parses, its canonical text must parse to the same tree. */
function checkText(source: string): void {
  const result = parseOrSyntaxError(source);
  if (result instanceof ExpressionSyntaxError) return;
  const formatted = formatExpression(result);
  assert.deepEqual(withoutPositions(parseExpression(formatted)), withoutPositions(result), formatted);
}

// Pieces of the language, so random sequences often come close to valid expressions.
const TOKENS = [
  'a',
  'b.c',
  'x/y',
  '"Order Date"',
  '[Order Date]',
  '""',
  '[',
  ']',
  '"',
  "'",
  "'it''s'",
  "'x",
  "'%a_'",
  '#p#',
  '#a.b#',
  '##',
  '#',
  '#a b#',
  '1',
  '-',
  '-2.5',
  '1e3',
  '1.',
  '.5',
  '12345678901234567890',
  '2024-01-31',
  '2024-02-30',
  '2024-01-31T10:00:00Z',
  '2024-13-01',
  "DATE '2024-01-31'",
  "TIMESTAMP '2024-01-31 10:00'",
  'date',
  'timestamp',
  'true',
  'FALSE',
  'null',
  'AND',
  'or',
  'Not',
  'LIKE',
  'ESCAPE',
  "'\\'",
  'IN',
  'IS',
  'BETWEEN',
  '=',
  '==',
  '<>',
  '!=',
  '!',
  '<',
  '<=',
  '>',
  '>=',
  '=>',
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  '&&',
  '||',
  '(',
  ')',
  '(',
  ')',
  ',',
  '.',
  '/',
  'contains(',
  'startswith(',
  'endswith(',
  'tolower(',
  'length(',
  'foo(',
  '%',
  '+',
  '@',
  '\n',
  '\t',
  'é',
  '😀',
];
const tokenSoup = fc
  .array(fc.tuple(fc.constantFrom(...TOKENS), fc.constantFrom('', ' ', ' ', '\n')), { maxLength: 20 })
  .map((parts) => parts.map(([token, space]) => token + space).join(''));

describe('parsing arbitrary text', () => {
  it('throws only ExpressionSyntaxError with an offset inside the text (ASCII-ish strings)', () => {
    fc.assert(fc.property(fc.string({ maxLength: 40 }), checkText), { numRuns: RUNS });
  });

  it('throws only ExpressionSyntaxError with an offset inside the text (full Unicode)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), checkText), { numRuns: RUNS });
  });

  it('throws only ExpressionSyntaxError with an offset inside the text (token soup)', () => {
    fc.assert(fc.property(tokenSoup, checkText), { numRuns: 2 * RUNS });
  });
});

// ---- generated trees ---------------------------------------------------------------------------

const at = { start: 0, end: 0 };
const identifier = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/);

/** Trees of the language; `names` supplies field and placeholder segments. */
function expressions(names: fc.Arbitrary<string>) {
  const dates = fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });
  const literal = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 8 }).map((value) => ({ type: 'literal', literalType: 'string', value, ...at })),
    fc
      .oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-0, 1e21, 2 ** 60, 5e-324))
      .map((value) => ({ type: 'literal', literalType: 'number', value, ...at })),
    fc.boolean().map((value) => ({ type: 'literal', literalType: 'boolean', value, ...at })),
    fc.constant({ type: 'literal', literalType: 'null', value: null, ...at }),
    dates.map((d) => ({ type: 'literal', literalType: 'date', value: d.toISOString().slice(0, 10), ...at })),
    fc.tuple(dates, fc.constantFrom('full', 'minutes', 'offset')).map(([d, form]) => {
      const iso = d.toISOString();
      const value = form === 'full' ? iso : form === 'minutes' ? iso.slice(0, 16) : `${iso.slice(0, 19)}-05:30`;
      return { type: 'literal', literalType: 'datetime', value, ...at };
    }),
  );
  const fieldNode = fc.array(names, { minLength: 1, maxLength: 3 }).map((path) => ({ type: 'field', path, ...at }));
  const placeholderNode = fc
    .array(
      fc.oneof(
        names.filter((n) => /^[A-Za-z0-9_-]+$/.test(n)),
        fc.stringMatching(/^[A-Za-z0-9_-]{1,6}$/),
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((path) => ({ type: 'placeholder', path, ...at }));
  const escape = fc.option(fc.oneof(fc.constantFrom('\\', '!', "'"), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })));

  return fc.letrec((tie) => ({
    value: fc.oneof(
      { maxDepth: 3 },
      literal,
      fieldNode,
      placeholderNode,
      fc
        .tuple(fc.constantFrom('tolower', 'toupper', 'trim', 'length'), tie('value'))
        .map(([name, arg]) => ({ type: 'call', name, args: [arg], ...at })),
    ),
    condition: fc.oneof(
      { maxDepth: 4 },
      fc
        .tuple(fc.constantFrom('=', '<>', '<', '<=', '>', '>='), tie('value'), tie('value'))
        .map(([op, left, right]) => ({ type: 'compare', op, left, right, ...at })),
      tie('value'),
      fc
        .tuple(fc.boolean(), tie('value'), tie('value'), escape)
        .map(([negated, value, pattern, esc]) => ({ type: 'like', negated, value, pattern, escape: esc, ...at })),
      fc
        .tuple(fc.boolean(), tie('value'), fc.array(tie('value'), { minLength: 1, maxLength: 3 }))
        .map(([negated, value, list]) => ({ type: 'in', negated, value, list, ...at })),
      fc.tuple(fc.boolean(), tie('value')).map(([negated, value]) => ({ type: 'isNull', negated, value, ...at })),
      fc
        .tuple(fc.boolean(), tie('value'), tie('value'), tie('value'))
        .map(([negated, value, low, high]) => ({ type: 'between', negated, value, low, high, ...at })),
      fc
        .tuple(fc.constantFrom('contains', 'startswith', 'endswith'), tie('value'), tie('value'))
        .map(([name, a, b]) => ({ type: 'call', name, args: [a, b], ...at })),
      fc.array(tie('condition'), { minLength: 2, maxLength: 3 }).map((operands) => ({ type: 'and', operands, ...at })),
      fc.array(tie('condition'), { minLength: 2, maxLength: 3 }).map((operands) => ({ type: 'or', operands, ...at })),
      tie('condition').map((operand) => ({ type: 'not', operand, ...at })),
    ),
  })).condition as fc.Arbitrary<Expression>;
}

const anyNames = fc.oneof(
  identifier,
  fc.constantFrom('and', 'NOT', 'null', 'True', 'in', 'eq', 'date', 'timestamp', 'contains', 'x y', 'a"b', 'a]b', "it's", '#', '1st'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 6 }),
);

/** Valid expressions with a few characters deleted, tokens inserted or the end cut off. */
const mutated = fc
  .tuple(
    expressions(anyNames).map((ast) => formatExpression(ast)),
    fc.array(fc.tuple(fc.constantFrom('delete', 'insert', 'cut'), fc.nat(), fc.integer({ min: 1, max: 4 }), fc.constantFrom(...TOKENS)), {
      minLength: 1,
      maxLength: 3,
    }),
  )
  .map(([text, edits]) =>
    edits.reduce((current, [kind, position, length, token]) => {
      const at = position % (current.length + 1);
      if (kind === 'delete') return current.slice(0, at) + current.slice(at + length);
      if (kind === 'insert') return `${current.slice(0, at)} ${token} ${current.slice(at)}`;
      return current.slice(0, at);
    }, text),
  );

describe('parsing damaged expressions', () => {
  it('throws only ExpressionSyntaxError with an offset inside the text, or parses and round-trips', () => {
    fc.assert(fc.property(mutated, checkText), { numRuns: RUNS });
  });
});

describe('formatting generated trees', () => {
  it('parse(formatExpression(ast)) gives the same tree', () => {
    fc.assert(
      fc.property(expressions(anyNames), (ast) => {
        const text = formatExpression(ast);
        assert.deepEqual(withoutPositions(parseExpression(text)), withoutPositions(ast), text);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('evaluating generated trees', () => {
  const names = fc.constantFrom('a', 'b', 'c');
  const dateText = fc.constantFrom('2024-01-31', '2024-01-31T10:00:00Z', '2024-01-31 10:00:00', '2024-02-30', 'not a date');
  const leafValue = fc.oneof(
    fc.anything(),
    fc.string({ maxLength: 5 }),
    fc.integer({ min: -3, max: 3 }).map(String),
    fc.integer({ min: -3, max: 3 }),
    fc.double(),
    fc.boolean(),
    fc.constantFrom('true', 'false', '', '%', "' OR 1=1 --", null, undefined, Number.NaN, 10n),
    fc.date(),
    dateText,
  );
  const data = fc.dictionary(names, fc.oneof(leafValue, fc.dictionary(names, leafValue)));

  it('never throws, returns a boolean and agrees with three-valued NOT', () => {
    fc.assert(
      fc.property(expressions(names), data, data, (generated, record, placeholders) => {
        const ast = parseExpression(formatExpression(generated));
        const scope = recordScope(record, placeholders);
        const result = evaluateCondition(ast, scope);
        assert.equal(typeof result, 'boolean');
        const truth = evaluateTruth(ast, scope);
        assert.equal(result, truth === true);
        const negated = evaluateTruth({ type: 'not', operand: ast, start: 0, end: 0 }, scope);
        assert.equal(negated, truth === null ? null : !truth);
      }),
      { numRuns: RUNS },
    );
  });
});
