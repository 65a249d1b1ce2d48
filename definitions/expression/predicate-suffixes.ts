/**
 * The predicates written after their value: `[NOT] LIKE`, `[NOT] IN`, `[NOT] BETWEEN` and
 * `IS [NOT] NULL`. Split from the parser so each file reads as one idea.
 */

import type { BetweenNode, Expression, InNode, IsNullNode, LikeNode, ValueExpression } from './ast.js';
import { isSymbol, isWord, type Token } from './tokens.js';

/** What the suffix rules need from the parser. */
export interface SuffixParser {
  peek(ahead?: number): Token;
  next(): Token;
  fail(message: string, offset: number): never;
  describe(token: Token): string;
  enter(token: Token): void;
  leave(): void;
  closeParen(open: Token, inList: boolean): Token;
  parseValueOperand(): ValueExpression;
  requireValue(left: Expression, operator: string): ValueExpression;
}

/** Parses a suffix predicate applying to `left`, or returns null when none follows. */
export function parseSuffix(parser: SuffixParser, left: Expression): Expression | null {
  let token = parser.peek();
  if (isWord(token, 'is')) return parseIsNull(parser, left);
  let negated = false;
  if (isWord(token, 'not')) {
    const following = parser.peek(1);
    if (!isWord(following, 'like') && !isWord(following, 'in') && !isWord(following, 'between')) {
      parser.fail(`expected LIKE, IN or BETWEEN after 'NOT' but found ${parser.describe(following)}`, following.start);
    }
    parser.next();
    negated = true;
    token = following;
  }
  if (token.kind !== 'word') return null;
  const label = `${negated ? 'NOT ' : ''}${token.lower.toUpperCase()}`;
  switch (token.lower) {
    case 'like':
      return parseLike(parser, parser.requireValue(left, label), negated);
    case 'in':
      return parseIn(parser, parser.requireValue(left, label), negated);
    case 'between':
      return parseBetween(parser, parser.requireValue(left, label), negated);
    default:
      return null;
  }
}

function parseIsNull(parser: SuffixParser, left: Expression): IsNullNode {
  const value = parser.requireValue(left, 'IS');
  parser.next();
  const negated = isWord(parser.peek(), 'not');
  if (negated) parser.next();
  const token = parser.peek();
  if (!isWord(token, 'null')) {
    const after = negated ? 'IS NOT' : 'IS';
    parser.fail(`expected NULL${negated ? '' : ' or NOT NULL'} after '${after}' but found ${parser.describe(token)}`, token.start);
  }
  parser.next();
  return { type: 'isNull', negated, value, start: left.start, end: token.end };
}

function parseLike(parser: SuffixParser, value: ValueExpression, negated: boolean): LikeNode {
  parser.next();
  const pattern = parser.parseValueOperand();
  let escape: string | null = null;
  let end = pattern.end;
  if (isWord(parser.peek(), 'escape')) {
    parser.next();
    const token = parser.peek();
    if (token.kind !== 'string' || Array.from(token.value).length !== 1) {
      parser.fail(`ESCAPE needs a single character in quotes, e.g. ESCAPE '\\', but found ${parser.describe(token)}`, token.start);
    }
    parser.next();
    escape = token.value;
    end = token.end;
  }
  return { type: 'like', negated, value, pattern, escape, start: value.start, end };
}

function parseIn(parser: SuffixParser, value: ValueExpression, negated: boolean): InNode {
  parser.next();
  const open = parser.peek();
  if (!isSymbol(open, '(')) parser.fail(`expected '(' after 'IN' but found ${parser.describe(open)}`, open.start);
  parser.next();
  parser.enter(open);
  if (isSymbol(parser.peek(), ')')) parser.fail('IN needs at least one value in its list', parser.peek().start);
  const list = [parser.parseValueOperand()];
  while (isSymbol(parser.peek(), ',')) {
    parser.next();
    list.push(parser.parseValueOperand());
  }
  const close = parser.closeParen(open, true);
  parser.leave();
  return { type: 'in', negated, value, list, start: value.start, end: close.end };
}

function parseBetween(parser: SuffixParser, value: ValueExpression, negated: boolean): BetweenNode {
  parser.next();
  const low = parser.parseValueOperand();
  const and = parser.peek();
  if (!isWord(and, 'and')) parser.fail(`expected AND between the bounds of BETWEEN but found ${parser.describe(and)}`, and.start);
  parser.next();
  const high = parser.parseValueOperand();
  return { type: 'between', negated, value, low, high, start: value.start, end: high.end };
}
