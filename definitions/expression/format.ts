/**
 * Canonical text for an AST: upper-case keywords, symbol operators, single-quoted strings, names
 * quoted only when they must be, and the fewest parentheses that keep the tree's shape. Parsing
 * the result gives the same tree (positions aside), which makes it the form for logs and tests.
 */

import type { Expression, LiteralNode, ValueExpression } from './ast.js';
import { RESERVED_WORDS } from './tokens.js';

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function formatExpression(ast: Expression): string {
  return formatCondition(ast, 'top');
}

type Parent = 'top' | 'or' | 'and' | 'not';

function formatCondition(node: Expression, parent: Parent): string {
  switch (node.type) {
    case 'or': {
      const text = node.operands.map((operand) => formatCondition(operand, 'or')).join(' OR ');
      return parent === 'top' ? text : `(${text})`;
    }
    case 'and': {
      const text = node.operands.map((operand) => formatCondition(operand, 'and')).join(' AND ');
      return parent === 'top' || parent === 'or' ? text : `(${text})`;
    }
    case 'not':
      return `NOT ${formatCondition(node.operand, 'not')}`;
    case 'compare':
      return `${formatValue(node.left)} ${node.op} ${formatValue(node.right)}`;
    case 'like': {
      const escape = node.escape === null ? '' : ` ESCAPE ${quoteString(node.escape)}`;
      return `${formatValue(node.value)} ${node.negated ? 'NOT ' : ''}LIKE ${formatValue(node.pattern)}${escape}`;
    }
    case 'in':
      return `${formatValue(node.value)} ${node.negated ? 'NOT ' : ''}IN (${node.list.map(formatValue).join(', ')})`;
    case 'isNull':
      return `${formatValue(node.value)} IS ${node.negated ? 'NOT ' : ''}NULL`;
    case 'between':
      return `${formatValue(node.value)} ${node.negated ? 'NOT ' : ''}BETWEEN ${formatValue(node.low)} AND ${formatValue(node.high)}`;
    default:
      return formatValue(node);
  }
}

function formatValue(node: ValueExpression | Expression): string {
  switch (node.type) {
    case 'literal':
      return formatLiteral(node);
    case 'field':
      return node.path.map(formatName).join('.');
    case 'placeholder':
      return `#${node.path.join('.')}#`;
    case 'call':
      return `${node.name}(${node.args.map(formatValue).join(', ')})`;
    default:
      // Only reachable for hand-built trees that put a condition where a value belongs.
      return `(${formatCondition(node, 'top')})`;
  }
}

function formatLiteral(node: LiteralNode): string {
  switch (node.literalType) {
    case 'string':
      return quoteString(node.value);
    case 'number':
      return formatNumber(node.value);
    case 'boolean':
      return node.value ? 'true' : 'false';
    case 'null':
      return 'null';
    case 'date':
    case 'datetime':
      return node.value;
  }
}

function formatNumber(value: number): string {
  if (Object.is(value, -0)) return '-0';
  // Integers beyond 2^53 are written in exponent form: the parser refuses long digit strings
  // it cannot hold exactly, but the exponent form names this exact double.
  if (Number.isInteger(value) && Math.abs(value) > Number.MAX_SAFE_INTEGER) return value.toExponential();
  return String(value);
}

function quoteString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** A path segment, bare when it can be, otherwise in double quotes. */
function formatName(name: string): string {
  if (PLAIN_NAME.test(name) && !RESERVED_WORDS.has(name.toLowerCase())) return name;
  return `"${name.replaceAll('"', '""')}"`;
}
