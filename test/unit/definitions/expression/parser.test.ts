import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  collectFields,
  collectPlaceholders,
  ExpressionSyntaxError,
  MAX_EXPRESSION_LENGTH,
  MAX_JOINED_CONDITIONS,
  parseExpression,
} from '../../../../definitions/expression/index.js';
import { and, bool, cmp, field, not, nul, num, or, placeholder, shape, str, syntaxError } from './ast-helpers.js';

const a1 = cmp(field('a'), '=', num(1));
const b2 = cmp(field('b'), '=', num(2));
const c3 = cmp(field('c'), '=', num(3));

describe('precedence', () => {
  it('binds AND tighter than OR', () => {
    assert.deepEqual(shape('a = 1 OR b = 2 AND c = 3'), or(a1, and(b2, c3)));
    assert.deepEqual(shape('a = 1 AND b = 2 OR c = 3'), or(and(a1, b2), c3));
  });

  it('binds NOT tighter than AND, and comparisons tighter than NOT', () => {
    assert.deepEqual(shape('NOT a = 1 AND b = 2'), and(not(a1), b2));
    assert.deepEqual(shape('NOT a = 1 OR b = 2'), or(not(a1), b2));
    assert.deepEqual(shape('NOT NOT a = 1'), not(not(a1)));
  });

  it('lets parentheses override', () => {
    assert.deepEqual(shape('(a = 1 OR b = 2) AND c = 3'), and(or(a1, b2), c3));
    assert.deepEqual(shape('NOT (a = 1 AND b = 2)'), not(and(a1, b2)));
    assert.deepEqual(shape('((a = 1))'), a1);
    assert.deepEqual(shape('(a) = 1'), a1);
  });

  it('flattens an unparenthesised chain but keeps parenthesised groups', () => {
    assert.deepEqual(shape('a = 1 AND b = 2 AND c = 3'), and(a1, b2, c3));
    assert.deepEqual(shape('(a = 1 AND b = 2) AND c = 3'), and(and(a1, b2), c3));
    assert.deepEqual(shape('a = 1 OR b = 2 OR c = 3'), or(a1, b2, c3));
  });
});

describe('SQL-like and OData spellings', () => {
  it('normalises every comparison operator', () => {
    const cases: Array<[string, string]> = [
      ['=', '='],
      ['<>', '<>'],
      ['!=', '<>'],
      ['<', '<'],
      ['<=', '<='],
      ['>', '>'],
      ['>=', '>='],
      ['eq', '='],
      ['ne', '<>'],
      ['lt', '<'],
      ['le', '<='],
      ['gt', '>'],
      ['ge', '>='],
      ['EQ', '='],
      ['Ge', '>='],
    ];
    for (const [written, op] of cases) assert.deepEqual(shape(`a ${written} 1`), cmp(field('a'), op, num(1)), written);
  });

  it('reads OData filters', () => {
    assert.deepEqual(
      shape("Name eq 'Milk' and Price lt 2.55 or not contains(Name, 'x')"),
      or(
        and(cmp(field('Name'), '=', str('Milk')), cmp(field('Price'), '<', num(2.55))),
        not({ type: 'call', name: 'contains', args: [field('Name'), str('x')] }),
      ),
    );
    assert.deepEqual(shape("Name in ('Milk', 'Cheese')"), {
      type: 'in',
      negated: false,
      value: field('Name'),
      list: [str('Milk'), str('Cheese')],
    });
    assert.deepEqual(shape('Address/City eq null'), cmp(field('Address', 'City'), '=', nul()));
  });

  it('accepts keywords in any case', () => {
    assert.deepEqual(shape('a = 1 aNd b = 2 Or NoT c = 3'), or(and(a1, b2), not(c3)));
    assert.deepEqual(shape("x LiKe 'a%'"), { type: 'like', negated: false, value: field('x'), pattern: str('a%'), escape: null });
    assert.deepEqual(shape('x Is NoT nUlL'), { type: 'isNull', negated: true, value: field('x') });
    assert.deepEqual(
      shape('x = TRUE OR y = False OR z = NULL'),
      or(cmp(field('x'), '=', bool(true)), cmp(field('y'), '=', bool(false)), cmp(field('z'), '=', nul())),
    );
    assert.deepEqual(shape("STARTSWITH(Name, 'A')"), { type: 'call', name: 'startswith', args: [field('Name'), str('A')] });
  });

  it('parses LIKE, IN, IS NULL and BETWEEN with their NOT forms', () => {
    assert.deepEqual(shape("x NOT LIKE 'a\\%' ESCAPE '\\'"), {
      type: 'like',
      negated: true,
      value: field('x'),
      pattern: str('a\\%'),
      escape: '\\',
    });
    assert.deepEqual(shape('x NOT IN (1, 2)'), { type: 'in', negated: true, value: field('x'), list: [num(1), num(2)] });
    assert.deepEqual(shape('x IS NULL'), { type: 'isNull', negated: false, value: field('x') });
    assert.deepEqual(
      shape('x BETWEEN 1 AND 5 AND y = 2'),
      and({ type: 'between', negated: false, value: field('x'), low: num(1), high: num(5) }, cmp(field('y'), '=', num(2))),
    );
    assert.deepEqual(
      shape('NOT x NOT BETWEEN -1 AND 1'),
      not({
        type: 'between',
        negated: true,
        value: field('x'),
        low: num(-1),
        high: num(1),
      }),
    );
  });

  it('parses value functions and nests them', () => {
    assert.deepEqual(shape("contains(tolower(Name), 'x')"), {
      type: 'call',
      name: 'contains',
      args: [{ type: 'call', name: 'tolower', args: [field('Name')] }, str('x')],
    });
    assert.deepEqual(
      shape('length(trim(Name)) > 3'),
      cmp({ type: 'call', name: 'length', args: [{ type: 'call', name: 'trim', args: [field('Name')] }] }, '>', num(3)),
    );
    assert.deepEqual(shape("toupper(a) = 'X'"), cmp({ type: 'call', name: 'toupper', args: [field('a')] }, '=', str('X')));
  });

  it('accepts a bare value as a condition', () => {
    assert.deepEqual(shape('true'), bool(true));
    assert.deepEqual(shape('#flag#'), placeholder('flag'));
    assert.deepEqual(shape('#FlowFilter#'), placeholder('FlowFilter'));
    assert.deepEqual(shape('active AND NOT deleted'), and(field('active'), not(field('deleted'))));
  });
});

describe('quoting and escapes', () => {
  it('doubles single quotes inside strings and keeps backslashes literal', () => {
    assert.deepEqual(shape("name = 'O''Brien'"), cmp(field('name'), '=', str("O'Brien")));
    assert.deepEqual(shape("p = 'C:\\temp\\new'"), cmp(field('p'), '=', str('C:\\temp\\new')));
    assert.deepEqual(shape("p = 'it\\'"), cmp(field('p'), '=', str('it\\')));
    assert.deepEqual(shape("s = ''''"), cmp(field('s'), '=', str("'")));
    assert.deepEqual(shape("s = ''"), cmp(field('s'), '=', str('')));
    assert.deepEqual(shape("s = 'line\nbreak'"), cmp(field('s'), '=', str('line\nbreak')));
  });

  it('reads double-quoted and bracketed names', () => {
    assert.deepEqual(shape('"Order Date" > 1'), cmp(field('Order Date'), '>', num(1)));
    assert.deepEqual(shape('[Order Date] > 1'), cmp(field('Order Date'), '>', num(1)));
    assert.deepEqual(shape('"say ""hi""" = 1'), cmp(field('say "hi"'), '=', num(1)));
    assert.deepEqual(shape('[a]]b] = 1'), cmp(field('a]b'), '=', num(1)));
    assert.deepEqual(shape('"and" = 1'), cmp(field('and'), '=', num(1)));
    assert.deepEqual(shape('"Customer"."Order Date" = 1'), cmp(field('Customer', 'Order Date'), '=', num(1)));
  });

  it('reads dotted and slashed paths', () => {
    assert.deepEqual(shape("address.city = 'X'"), cmp(field('address', 'city'), '=', str('X')));
    assert.deepEqual(shape("address/city = 'X'"), cmp(field('address', 'city'), '=', str('X')));
    assert.deepEqual(shape("a.b/c = 'X'"), cmp(field('a', 'b', 'c'), '=', str('X')));
  });

  it('keeps fields named date and timestamp usable', () => {
    assert.deepEqual(shape('date > 2024-01-01'), cmp(field('date'), '>', { type: 'literal', literalType: 'date', value: '2024-01-01' }));
    assert.deepEqual(shape('timestamp IS NULL'), { type: 'isNull', negated: false, value: field('timestamp') });
  });
});

describe('numbers and dates', () => {
  it('reads integers, decimals, exponents and negatives', () => {
    const value = (source: string) => (shape(`n = ${source}`) as { right: unknown }).right;
    assert.deepEqual(value('0'), num(0));
    assert.deepEqual(value('42'), num(42));
    assert.deepEqual(value('3.14'), num(3.14));
    assert.deepEqual(value('1e3'), num(1000));
    assert.deepEqual(value('2.5E-3'), num(0.0025));
    assert.deepEqual(value('-7'), num(-7));
    assert.deepEqual(value('- 7.5'), num(-7.5));
    assert.deepEqual(value('9007199254740991'), num(Number.MAX_SAFE_INTEGER));
  });

  it('reads ISO dates and date-times, unquoted and SQL-style', () => {
    const value = (source: string) => (shape(`d = ${source}`) as { right: unknown }).right;
    const date = (v: string) => ({ type: 'literal', literalType: 'date', value: v });
    const dateTime = (v: string) => ({ type: 'literal', literalType: 'datetime', value: v });
    assert.deepEqual(value('2024-01-31'), date('2024-01-31'));
    assert.deepEqual(value('2024-02-29'), date('2024-02-29'));
    assert.deepEqual(value('2024-01-31T10:00:00Z'), dateTime('2024-01-31T10:00:00Z'));
    assert.deepEqual(value('2024-01-31T10:00'), dateTime('2024-01-31T10:00'));
    assert.deepEqual(value('2024-01-31T10:00:00.123+02:00'), dateTime('2024-01-31T10:00:00.123+02:00'));
    assert.deepEqual(value("DATE '2024-01-31'"), date('2024-01-31'));
    assert.deepEqual(value("date '2000-02-29'"), date('2000-02-29'));
    assert.deepEqual(value("TIMESTAMP '2024-01-31 10:00:00'"), dateTime('2024-01-31T10:00:00'));
    assert.deepEqual(value("timestamp '2024-01-31T10:00:00Z'"), dateTime('2024-01-31T10:00:00Z'));
  });
});

describe('placeholders', () => {
  it('reads paths between hashes', () => {
    assert.deepEqual(shape('Email = #Email#'), cmp(field('Email'), '=', placeholder('Email')));
    assert.deepEqual(shape('x = #a.b#'), cmp(field('x'), '=', placeholder('a', 'b')));
    assert.deepEqual(shape('x = #a.b.c#'), cmp(field('x'), '=', placeholder('a', 'b', 'c')));
    assert.deepEqual(shape('x = #first-name#'), cmp(field('x'), '=', placeholder('first-name')));
    assert.deepEqual(shape('x = #items.0.sku#'), cmp(field('x'), '=', placeholder('items', '0', 'sku')));
  });

  it('lists placeholders and fields in source order with their ranges', () => {
    const ast = parseExpression("#status# <> 'draft' AND total > #min.total# OR address.city = #city#");
    assert.deepEqual(collectPlaceholders(ast), [
      { path: ['status'], start: 0, end: 8 },
      { path: ['min', 'total'], start: 32, end: 43 },
      { path: ['city'], start: 62, end: 68 },
    ]);
    assert.deepEqual(collectFields(ast), [
      { path: ['total'], start: 24, end: 29 },
      { path: ['address', 'city'], start: 47, end: 59 },
    ]);
  });
});

describe('source positions', () => {
  it('gives every node its own range', () => {
    const ast = parseExpression("name = 'x' AND NOT #a.b# IN (1, -2)");
    assert.equal(ast.type, 'and');
    if (ast.type !== 'and') return;
    assert.deepEqual([ast.start, ast.end], [0, 35]);
    const [first, second] = ast.operands;
    assert.ok(first?.type === 'compare' && second?.type === 'not');
    assert.deepEqual([first.start, first.end, first.left.start, first.left.end, first.right.start, first.right.end], [0, 10, 0, 4, 7, 10]);
    assert.deepEqual([second.start, second.end], [15, 35]);
    const inNode = second.operand;
    assert.ok(inNode.type === 'in');
    assert.deepEqual([inNode.start, inNode.end, inNode.value.start, inNode.value.end], [19, 35, 19, 24]);
    assert.deepEqual(
      inNode.list.map((item) => [item.start, item.end]),
      [
        [29, 30],
        [32, 34],
      ],
    );
  });

  it('covers keywords, quotes and parentheses of calls but not grouping parentheses', () => {
    const call = parseExpression("  contains( [Order Date] , 'x' )  ");
    assert.deepEqual([call.start, call.end], [2, 32]);
    assert.ok(call.type === 'call');
    assert.deepEqual(
      call.args.map((arg) => [arg.start, arg.end]),
      [
        [12, 24],
        [27, 30],
      ],
    );
    const typed = parseExpression("d = DATE '2024-01-31'");
    assert.ok(typed.type === 'compare');
    assert.deepEqual([typed.right.start, typed.right.end], [4, 21]);
    const grouped = parseExpression('(a = 1)');
    assert.deepEqual([grouped.start, grouped.end], [1, 6]);
  });
});

describe('syntax errors', () => {
  const cases: Array<{ source: string; offset: number; message: RegExp }> = [
    { source: 'name = ', offset: 7, message: /expected a value after '=' but found end of expression/ },
    { source: "a = 'x", offset: 4, message: /unterminated string that begins "'x"/ },
    { source: 'a == 1', offset: 3, message: /unknown operator '=='; use '=' or 'eq'/ },
    { source: '(a = 1', offset: 6, message: /missing '\)' to close the '\(' that begins "\(a = 1"/ },
    { source: '(a = 1 b', offset: 7, message: /expected '\)' to close the '\(' that begins "\(a = 1 b" but found 'b'/ },
    { source: '', offset: 0, message: /the expression is empty/ },
    { source: '   ', offset: 3, message: /the expression is empty/ },
    { source: 'a = ##', offset: 4, message: /empty placeholder '##'/ },
    { source: 'a = #first name#', offset: 10, message: /invalid character ' ' in placeholder that begins "#first name#"/ },
    { source: 'a = #abc', offset: 4, message: /unterminated placeholder that begins "#abc"/ },
    { source: 'a = #a..b#', offset: 7, message: /empty name segment in placeholder/ },
    {
      source: 'foo(a) = 1',
      offset: 0,
      message: /unknown function 'foo'; known functions are contains, endswith, length, startswith, tolower, toupper, trim/,
    },
    { source: 'contains(a)', offset: 10, message: /contains takes 2 arguments \(value, text\) but got 1/ },
    { source: "tolower(a, 'b') = 'c'", offset: 11, message: /tolower takes 1 argument \(value\) but got 2/ },
    { source: "name equals 'x'", offset: 5, message: /expected an operator such as '=', LIKE or IN after 'name' but found 'equals'/ },
    { source: 'a = 1)', offset: 5, message: /unexpected '\)' without a matching '\('/ },
    { source: 'a = 1 b = 2', offset: 6, message: /expected AND, OR or end of expression but found 'b'/ },
    { source: 'a = 2024-02-30', offset: 4, message: /invalid date 2024-02-30: February 2024 has 29 days/ },
    { source: 'a = 2023-13-01', offset: 4, message: /month 13 does not exist/ },
    { source: 'a = 2024-1-5', offset: 4, message: /malformed date '2024-1-5'/ },
    { source: 'a = 2024-01-31T25:00:00Z', offset: 4, message: /hour 25 does not exist/ },
    { source: "d = DATE '2024-01-31T10:00:00Z'", offset: 9, message: /DATE needs a date such as '2024-01-31'/ },
    { source: "d = TIMESTAMP '2024-01-31'", offset: 14, message: /TIMESTAMP needs a date and time/ },
    { source: 'x IN ()', offset: 6, message: /IN needs at least one value/ },
    { source: 'x IN 1, 2', offset: 5, message: /expected '\(' after 'IN' but found number 1/ },
    { source: 'x IN (1 2)', offset: 8, message: /expected ',' or '\)' to close the '\(' that begins "\(1 2\)" but found number 2/ },
    { source: 'a = (b = 1)', offset: 5, message: /expected a value after '=' but found 'b = 1', which is a condition/ },
    { source: "contains(a, 'x') = true", offset: 0, message: /left side of '=' must be a value, not contains\(…\)/ },
    { source: 'a NOT = 1', offset: 6, message: /expected LIKE, IN or BETWEEN after 'NOT' but found '='/ },
    { source: 'a IS 5', offset: 5, message: /expected NULL or NOT NULL after 'IS' but found number 5/ },
    { source: 'a IS NOT 5', offset: 9, message: /expected NULL after 'IS NOT'/ },
    { source: 'a BETWEEN 1 OR 2', offset: 12, message: /expected AND between the bounds of BETWEEN but found keyword 'OR'/ },
    { source: "x LIKE 'a' ESCAPE 'ab'", offset: 18, message: /ESCAPE needs a single character/ },
    { source: 'a = 1.', offset: 4, message: /malformed number '1\.'/ },
    { source: 'a = .5', offset: 4, message: /digit before its decimal point/ },
    { source: 'a = 12abc', offset: 4, message: /malformed number '12abc'/ },
    { source: 'id = 12345678901234567890', offset: 5, message: /too large to represent exactly; quote it as a string/ },
    { source: 'id = 1234567890123456790.0', offset: 5, message: /too large to represent exactly; quote it as a string/ },
    { source: 'id = 1234567890123456790e0', offset: 5, message: /too large to represent exactly; quote it as a string/ },
    { source: "a = -'x'", offset: 5, message: /'-' must be followed by a number but found string 'x'/ },
    { source: 'a. = 1', offset: 3, message: /expected a field name after '\.' but found '='/ },
    { source: 'a = 1 AND', offset: 9, message: /expected a condition after 'AND' but found end of expression/ },
    { source: 'AND a = 1', offset: 0, message: /expected a condition but found keyword 'AND'/ },
    { source: 'a = OR', offset: 4, message: /expected a value after '=' but found keyword 'OR'/ },
    { source: 'a ! 1', offset: 2, message: /unknown operator '!'; use NOT or '<>'/ },
    { source: 'a = 1 && b = 2', offset: 6, message: /unknown operator '&&'; use AND/ },
    { source: 'a = 1 || b = 2', offset: 6, message: /unknown operator '\|\|'; use OR/ },
    { source: 'a => 1', offset: 2, message: /unknown operator '=>'; use '>=' or 'ge'/ },
    { source: 'name LIKE %x%', offset: 10, message: /LIKE patterns are strings/ },
    { source: 'a = 1 + 2', offset: 6, message: /arithmetic is not supported/ },
    { source: 'a @ 1', offset: 2, message: /unexpected character '@'/ },
    { source: '"Order Date = 1', offset: 0, message: /unterminated quoted name that begins ""Order Date = 1"/ },
    { source: '[Order Date = 1', offset: 0, message: /unterminated bracketed name that begins "\[Order Date = 1"/ },
    { source: '"" = 1', offset: 0, message: /empty quoted name/ },
    { source: 'a = 1]', offset: 5, message: /unexpected '\]' without a matching '\['/ },
  ];

  for (const { source, offset, message } of cases) {
    it(`reports ${JSON.stringify(source)} at offset ${offset}`, () => {
      const error = syntaxError(source);
      assert.match(error.message, message);
      assert.equal(error.offset, offset);
      assert.equal(error.line, 1);
      assert.equal(error.column, offset + 1);
    });
  }

  it('counts lines and columns in multi-line expressions', () => {
    const error = syntaxError("a = 1\n  AND (b = 'x");
    assert.equal(error.offset, 17);
    assert.equal(error.line, 2);
    assert.equal(error.column, 12);
    assert.match(error.message, /unterminated string that begins "'x"/);
    const crlf = syntaxError('a = 1\r\nAND b ==');
    assert.deepEqual([crlf.line, crlf.column], [2, 8]);
  });

  it('is an Error with a name and a data form', () => {
    const error = syntaxError('a =');
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'ExpressionSyntaxError');
    assert.deepEqual(error.toJSON(), { message: error.message, offset: 3, line: 1, column: 4 });
  });

  it('limits nesting depth instead of overflowing the stack', () => {
    assert.doesNotThrow(() => parseExpression(`${'('.repeat(200)}a = 1${')'.repeat(200)}`));
    const deep = syntaxError(`${'('.repeat(201)}a = 1${')'.repeat(201)}`);
    assert.equal(deep.offset, 200);
    assert.match(deep.message, /nests deeper than 200 levels/);
    assert.match(syntaxError(`${'NOT '.repeat(5000)}a`).message, /nests deeper/);
    assert.match(syntaxError(`${'tolower('.repeat(300)}a${')'.repeat(300)} = 'x'`).message, /nests deeper/);
    assert.match(syntaxError(`${'('.repeat(100_000)}`).message, /the limit is|nests deeper/);
  });

  // SQLite refuses an expression tree deeper than 1,000, and nests a chain one level per condition.
  it('limits how many conditions AND and OR join, in one chain or across the expression', () => {
    const chain = (count: number, op: string) => Array.from({ length: count }, (_, i) => `id = ${i}`).join(` ${op} `);
    assert.ok(parseExpression(chain(MAX_JOINED_CONDITIONS + 1, 'OR')));
    const error = syntaxError(chain(MAX_JOINED_CONDITIONS + 2, 'OR'));
    assert.match(error.message, /joins more than 500 conditions with AND and OR; compare a field with many values with IN/);
    assert.equal(chain(MAX_JOINED_CONDITIONS + 2, 'OR').slice(error.offset, error.offset + 3), 'OR ');
    const mixed = `(${chain(300, 'AND')}) OR (${chain(300, 'OR')})`;
    assert.match(syntaxError(mixed).message, /joins more than 500/);
    assert.ok(parseExpression(`id IN (${Array.from({ length: 2000 }, (_, i) => i).join(', ')}) AND x BETWEEN 1 AND 2`));
  });

  it('limits input length', () => {
    const long = `a = '${'x'.repeat(MAX_EXPRESSION_LENGTH)}'`;
    const error = syntaxError(long);
    assert.equal(error.offset, MAX_EXPRESSION_LENGTH);
    assert.match(error.message, /the limit is 65536/);
    assert.ok(parseExpression(`a = '${'x'.repeat(MAX_EXPRESSION_LENGTH - 6)}'`));
  });

  it('throws only ExpressionSyntaxError, even for non-string input', () => {
    assert.throws(() => parseExpression(42 as unknown as string), ExpressionSyntaxError);
  });
});
