/** Small helpers shared by the expression tests. */

import assert from 'node:assert/strict';
import { ExpressionSyntaxError, parseExpression, type Expression } from '../../../../definitions/expression/index.js';

/** A deep copy of the tree without `start`/`end`, for comparing shapes. */
export function withoutPositions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutPositions);
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'start' && key !== 'end') copy[key] = withoutPositions(value);
  }
  return copy;
}

/** Parses and returns the shape only. */
export function shape(source: string): unknown {
  return withoutPositions(parseExpression(source));
}

/** The syntax error `source` produces; fails the test when it parses or throws something else. */
export function syntaxError(source: string): ExpressionSyntaxError {
  try {
    parseExpression(source);
  } catch (error) {
    assert.ok(error instanceof ExpressionSyntaxError, `expected ExpressionSyntaxError, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(source)} not to parse`);
}

// Terse constructors for expected shapes.
export const field = (...path: string[]) => ({ type: 'field', path });
export const placeholder = (...path: string[]) => ({ type: 'placeholder', path });
export const str = (value: string) => ({ type: 'literal', literalType: 'string', value });
export const num = (value: number) => ({ type: 'literal', literalType: 'number', value });
export const bool = (value: boolean) => ({ type: 'literal', literalType: 'boolean', value });
export const nul = () => ({ type: 'literal', literalType: 'null', value: null });
export const cmp = (left: unknown, op: string, right: unknown) => ({ type: 'compare', op, left, right });
export const and = (...operands: unknown[]) => ({ type: 'and', operands });
export const or = (...operands: unknown[]) => ({ type: 'or', operands });
export const not = (operand: unknown) => ({ type: 'not', operand });

export type { Expression };
