/**
 * Recursive-descent parser for the expression language, one function per precedence level:
 *
 *   or        := and (OR and)*
 *   and       := not (AND not)*
 *   not       := NOT not | predicate
 *   predicate := operand [ compare-op operand
 *                        | [NOT] LIKE operand [ESCAPE string]
 *                        | [NOT] IN '(' operand (',' operand)* ')'
 *                        | [NOT] BETWEEN operand AND operand
 *                        | IS [NOT] NULL ]
 *   operand   := '(' or ')' | literal | field | placeholder | call
 *
 * Comparisons bind tighter than NOT, NOT tighter than AND, AND tighter than OR. Keywords and
 * function names are case-insensitive, so SQL-like and OData spellings mix freely. An operand with
 * no operator after it is a complete condition (a truthy test: `#flag#`, `active AND NOT deleted`);
 * operands of comparisons, LIKE, IN, BETWEEN and functions must be values, never conditions.
 */

import { isValueExpression, type CompareOperator, type Expression, type FieldNode, type LiteralNode, type ValueExpression } from './ast.js';
import { FUNCTION_NAMES, FUNCTIONS, isFunctionName } from './functions.js';
import { isoDateProblem, matchIsoDate } from './iso-dates.js';
import { Lexer } from './lexer.js';
import { parseSuffix, type SuffixParser } from './predicate-suffixes.js';
import { describePosition, ExpressionSyntaxError } from './syntax-error.js';
import { describeToken, excerpt, isSymbol, isWord, RESERVED_WORDS, WORD_OPERATORS, type Token } from './tokens.js';

/** Longest accepted expression, in UTF-16 code units. */
export const MAX_EXPRESSION_LENGTH = 64 * 1024;
/** Deepest accepted nesting of parentheses, NOTs and function calls. */
export const MAX_NESTING_DEPTH = 200;
/**
 * Most ANDs and ORs in one expression. Databases nest a chain of them one level per condition
 * and refuse it past a depth (SQLite at 1,000), so a longer chain, with the nesting above and
 * the conditions a read adds, would be accepted here and fail there.
 */
export const MAX_JOINED_CONDITIONS = 500;

/**
 * Parses a filter or condition. Throws `ExpressionSyntaxError` (and nothing else) when the text is
 * not a valid expression; the error names what was expected, what was found and where.
 */
export function parseExpression(source: string): Expression {
  if (typeof source !== 'string') throw new ExpressionSyntaxError('an expression must be text', '', 0);
  if (source.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionSyntaxError(
      `the expression is ${source.length} characters long; the limit is ${MAX_EXPRESSION_LENGTH}`,
      source,
      MAX_EXPRESSION_LENGTH,
    );
  }
  return new Parser(source).parseAll();
}

const SYMBOL_OPERATORS: Readonly<Record<string, CompareOperator>> = {
  '=': '=',
  '<>': '<>',
  '!=': '<>',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};

class Parser implements SuffixParser {
  private readonly lexer: Lexer;
  private depth = 0;
  /** ANDs and ORs so far (MAX_JOINED_CONDITIONS). */
  private joins = 0;
  /** The last consumed token, so messages can say "after '='". */
  private last: Token | null = null;

  constructor(readonly source: string) {
    this.lexer = new Lexer(source);
  }

  parseAll(): Expression {
    if (this.peek().kind === 'end') this.fail('the expression is empty', this.peek().start);
    const expression = this.parseOr();
    const token = this.peek();
    if (token.kind !== 'end') {
      if (isSymbol(token, ')')) this.fail("unexpected ')' without a matching '('", token.start);
      this.fail(`expected AND, OR or end of expression but found ${this.describe(token)}`, token.start);
    }
    return expression;
  }

  // ---- helpers shared with the suffix parser -------------------------------------------------

  peek(ahead = 0): Token {
    return this.lexer.peek(ahead);
  }

  next(): Token {
    this.last = this.lexer.next();
    return this.last;
  }

  fail(message: string, offset: number): never {
    throw new ExpressionSyntaxError(message, this.source, offset);
  }

  describe(token: Token): string {
    return describeToken(token, this.source);
  }

  text(range: { start: number; end: number }): string {
    return excerpt(this.source.slice(range.start, range.end));
  }

  /** Counts one level of nesting; the limit keeps deep input from overflowing the stack. */
  enter(token: Token): void {
    if (++this.depth > MAX_NESTING_DEPTH) {
      this.fail(`the expression nests deeper than ${MAX_NESTING_DEPTH} levels`, token.start);
    }
  }

  leave(): void {
    this.depth--;
  }

  /** Counts one AND or OR against MAX_JOINED_CONDITIONS. */
  private join(token: Token): void {
    if (++this.joins > MAX_JOINED_CONDITIONS) {
      this.fail(
        `the expression joins more than ${MAX_JOINED_CONDITIONS} conditions with AND and OR; compare a field with many values with IN (…) instead`,
        token.start,
      );
    }
  }

  /** Consumes the ')' matching `open`, or says it is missing. */
  closeParen(open: Token, inList: boolean): Token {
    const token = this.peek();
    if (isSymbol(token, ')')) return this.next();
    const where = describePosition(this.source, open.start);
    if (token.kind === 'end') this.fail(`missing ')' to close the '(' ${where}`, token.start);
    const expected = inList ? "',' or ')'" : "')'";
    return this.fail(`expected ${expected} to close the '(' ${where} but found ${this.describe(token)}`, token.start);
  }

  /** A value operand: a literal, field, placeholder, value function or a parenthesised value. */
  parseValueOperand(): ValueExpression {
    const after = this.last;
    const node = this.parseOperand('a value');
    if (isValueExpression(node)) return node;
    const what = node.type === 'call' ? `${node.name}(…)` : `'${this.text(node)}'`;
    const context = after ? ` after '${this.text(after)}'` : '';
    return this.fail(`expected a value${context} but found ${what}, which is a condition`, node.start);
  }

  /** Fails when `left` is a condition used where `operator` (as a message shows it) needs a value. */
  requireValue(left: Expression, operator: string): ValueExpression {
    if (isValueExpression(left)) return left;
    const what = left.type === 'call' ? `${left.name}(…), which is a condition` : 'a condition';
    return this.fail(`the left side of ${operator} must be a value, not ${what}`, left.start);
  }

  // ---- precedence levels ---------------------------------------------------------------------

  private parseOr(): Expression {
    const first = this.parseAnd();
    if (!isWord(this.peek(), 'or')) return first;
    const operands = [first];
    while (isWord(this.peek(), 'or')) {
      this.join(this.next());
      operands.push(this.parseAnd());
    }
    return { type: 'or', operands, start: first.start, end: operands[operands.length - 1]!.end };
  }

  private parseAnd(): Expression {
    const first = this.parseNot();
    if (!isWord(this.peek(), 'and')) return first;
    const operands = [first];
    while (isWord(this.peek(), 'and')) {
      this.join(this.next());
      operands.push(this.parseNot());
    }
    return { type: 'and', operands, start: first.start, end: operands[operands.length - 1]!.end };
  }

  private parseNot(): Expression {
    if (!isWord(this.peek(), 'not')) return this.parsePredicate();
    const not = this.next();
    this.enter(not);
    const operand = this.parseNot();
    this.leave();
    return { type: 'not', operand, start: not.start, end: operand.end };
  }

  private parsePredicate(): Expression {
    const left = this.parseOperand('a condition');
    const token = this.peek();
    const op = comparisonOperator(token);
    if (op) {
      this.next();
      const value = this.requireValue(left, `'${this.text(token)}'`);
      const right = this.parseValueOperand();
      return { type: 'compare', op, left: value, right, start: left.start, end: right.end };
    }
    const suffix = parseSuffix(this, left);
    if (suffix) return suffix;
    if (isValueExpression(left) && startsValue(token)) {
      this.fail(`expected an operator such as '=', LIKE or IN after '${this.text(left)}' but found ${this.describe(token)}`, token.start);
    }
    return left;
  }

  private parseOperand(expected: string): Expression {
    const token = this.peek();
    if (!isSymbol(token, '(')) return this.parseValue(expected);
    this.next();
    this.enter(token);
    const inner = this.parseOr();
    this.closeParen(token, false);
    this.leave();
    return inner;
  }

  // ---- values ---------------------------------------------------------------------------------

  private parseValue(expected: string): Expression {
    const token = this.peek();
    const { start, end } = token;
    switch (token.kind) {
      case 'string':
        this.next();
        return { type: 'literal', literalType: 'string', value: token.value, start, end };
      case 'number':
        this.next();
        return { type: 'literal', literalType: 'number', value: token.value, start, end };
      case 'date':
        this.next();
        return token.hasTime
          ? { type: 'literal', literalType: 'datetime', value: token.value, start, end }
          : { type: 'literal', literalType: 'date', value: token.value, start, end };
      case 'placeholder':
        this.next();
        return { type: 'placeholder', path: token.path, start, end };
      case 'quotedName':
        return this.parseField();
      case 'symbol':
        if (token.text === '-') return this.parseNegativeNumber();
        break;
      case 'word': {
        if (token.lower === 'true' || token.lower === 'false') {
          this.next();
          return { type: 'literal', literalType: 'boolean', value: token.lower === 'true', start, end };
        }
        if (token.lower === 'null') {
          this.next();
          return { type: 'literal', literalType: 'null', value: null, start, end };
        }
        if (RESERVED_WORDS.has(token.lower)) break;
        const following = this.peek(1);
        if ((token.lower === 'date' || token.lower === 'timestamp') && following.kind === 'string') {
          return this.parseTypedDate();
        }
        return isSymbol(following, '(') ? this.parseCall() : this.parseField();
      }
    }
    const context = this.last ? ` after '${this.text(this.last)}'` : '';
    return this.fail(`expected ${expected}${context} but found ${this.describe(token)}`, token.start);
  }

  private parseNegativeNumber(): LiteralNode {
    const minus = this.next();
    const token = this.peek();
    if (token.kind !== 'number') this.fail(`'-' must be followed by a number but found ${this.describe(token)}`, token.start);
    this.next();
    return { type: 'literal', literalType: 'number', value: -token.value, start: minus.start, end: token.end };
  }

  /** `DATE 'YYYY-MM-DD'` or `TIMESTAMP 'YYYY-MM-DD[T ]HH:MM…'`. */
  private parseTypedDate(): LiteralNode {
    const keyword = this.next() as Extract<Token, { kind: 'word' }>;
    const literal = this.next() as Extract<Token, { kind: 'string' }>;
    const wantsTime = keyword.lower === 'timestamp';
    const parts = matchIsoDate(literal.value, 0, 'quoted');
    const example = wantsTime ? "'2024-01-31T10:00:00Z'" : "'2024-01-31'";
    if (!parts || parts.length !== literal.value.length || parts.hasTime !== wantsTime) {
      this.fail(
        `${keyword.text.toUpperCase()} needs ${wantsTime ? 'a date and time' : 'a date'} such as ${example} but found ${this.text(literal)}`,
        literal.start,
      );
    }
    const problem = isoDateProblem(parts);
    if (problem) this.fail(`invalid ${wantsTime ? 'date-time' : 'date'} ${this.text(literal)}: ${problem}`, literal.start);
    const range = { start: keyword.start, end: literal.end };
    return wantsTime
      ? { type: 'literal', literalType: 'datetime', value: literal.value.replace(' ', 'T'), ...range }
      : { type: 'literal', literalType: 'date', value: literal.value, ...range };
  }

  /** Segments joined by `.` or `/`; a segment is a word or a quoted name. */
  private parseField(): FieldNode {
    const first = this.next();
    const path = [segmentName(first)];
    let end = first.end;
    while (isSymbol(this.peek(), '.') || isSymbol(this.peek(), '/')) {
      const separator = this.next();
      const token = this.peek();
      if (token.kind !== 'word' && token.kind !== 'quotedName') {
        this.fail(`expected a field name after '${this.text(separator)}' but found ${this.describe(token)}`, token.start);
      }
      this.next();
      path.push(segmentName(token));
      end = token.end;
    }
    return { type: 'field', path, start: first.start, end };
  }

  private parseCall(): Expression {
    const name = this.next() as Extract<Token, { kind: 'word' }>;
    const open = this.next();
    if (!isFunctionName(name.lower)) {
      this.fail(`unknown function '${name.text}'; known functions are ${FUNCTION_NAMES.join(', ')}`, name.start);
    }
    this.enter(open);
    const args: ValueExpression[] = [];
    if (!isSymbol(this.peek(), ')')) {
      args.push(this.parseValueOperand());
      while (isSymbol(this.peek(), ',')) {
        this.next();
        args.push(this.parseValueOperand());
      }
    }
    const close = this.closeParen(open, true);
    this.leave();
    const params = FUNCTIONS[name.lower].params;
    if (args.length !== params.length) {
      const takes = `${name.lower} takes ${params.length} argument${params.length === 1 ? '' : 's'} (${params.join(', ')}) but got ${args.length}`;
      this.fail(takes, args.length > params.length ? args[params.length]!.start : close.start);
    }
    // The name decides whether the node is a predicate or a value; the cast only joins the two shapes.
    return { type: 'call', name: name.lower, args, start: name.start, end: close.end } as Expression;
  }
}

function segmentName(token: Token): string {
  if (token.kind === 'word') return token.text;
  if (token.kind === 'quotedName') return token.name;
  throw new Error(`internal: ${token.kind} is not a field name segment`);
}

function comparisonOperator(token: Token): CompareOperator | undefined {
  if (token.kind === 'symbol') return SYMBOL_OPERATORS[token.text];
  if (token.kind === 'word' && Object.hasOwn(WORD_OPERATORS, token.lower)) return WORD_OPERATORS[token.lower];
  return undefined;
}

/** Tokens that can only begin a value, used to spot a missing operator (`name equals 'x'`). */
function startsValue(token: Token): boolean {
  switch (token.kind) {
    case 'string':
    case 'number':
    case 'date':
    case 'placeholder':
    case 'quotedName':
      return true;
    case 'word':
      return !RESERVED_WORDS.has(token.lower) || token.lower === 'true' || token.lower === 'false' || token.lower === 'null';
    default:
      return false;
  }
}
