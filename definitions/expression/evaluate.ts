/**
 * Runs an expression against data in JS: for connectors that cannot push a filter down, for
 * webhook execution conditions and for sync preconditions.
 */

import type { CompareOperator, Expression, LiteralNode, ValueExpression } from './ast.js';
import { compareValues, holdsForOrder, not, textOf, truthOf, type Truth } from './compare-values.js';
import { isoDateProblem, isoDateToEpochMillis, matchIsoDate } from './iso-dates.js';
import { likeMatches } from './like-pattern.js';
import type { EvaluationScope } from './evaluation-scope.js';

/**
 * True when the condition holds for the scope's data. Never throws for a parsed expression.
 *
 * Semantics (the same the SQL and OData compilations produce):
 * - **Missing is null.** A missing field or placeholder has the value null.
 * - **Three-valued logic.** A comparison involving null is unknown; AND, OR and NOT follow
 *   SQL/Kleene rules (false AND unknown = false, true OR unknown = true, NOT unknown = unknown).
 *   The result is true only when the whole condition is true; unknown counts as not matching.
 * - **The literal null.** `x = null` means `x IS NULL` and `x <> null` means `x IS NOT NULL`
 *   (other comparisons with the literal null are unknown). A placeholder or field holding null
 *   gets no such treatment: `x = #p#` with `#p#` missing is unknown, as with a bound SQL parameter.
 * - **Coercion** (see `compareValues`): a number and a numeric string compare as numbers
 *   (`#total# > 0` holds for total "5"); booleans compare with booleans, 1/0 and
 *   'true'/'false'/'1'/'0'; a date or date-time literal (or any Date value) makes both sides
 *   instants: a date is midnight UTC, a date-time without offset is UTC, the other side may be a
 *   Date or an ISO string; other strings compare by UTF-16 code unit, case-sensitively; objects
 *   and arrays are unknown, as is any pair that does not fit these rules (e.g. 'abc' > 1).
 * - **IN** is `x = v1 OR x = v2 …` under the rules above; **BETWEEN** is `x >= low AND x <= high`.
 *   The NOT forms negate the result (NOT unknown stays unknown).
 * - **LIKE** is case-sensitive; `%` is any run of characters, `_` exactly one; the value and the
 *   pattern must have text (strings, numbers, Dates as ISO UTC), otherwise unknown.
 * - **Functions**: `contains`, `startswith`, `endswith` are case-sensitive, like OData;
 *   `tolower`, `toupper`, `trim` and `length` (in code points) give null for a value without text.
 * - **A bare value as condition** (`#flag#`, `active`): null is unknown; a boolean is itself; a
 *   number is true unless 0; a string is false when empty, 'false' or '0' (any case, trimmed)
 *   and true otherwise; a Date is true; objects and arrays are unknown.
 */
export function evaluateCondition(ast: Expression, scope: EvaluationScope): boolean {
  return evaluateTruth(ast, scope) === true;
}

/** Like `evaluateCondition`, but tells false from unknown (null). */
export function evaluateTruth(node: Expression, scope: EvaluationScope): Truth {
  switch (node.type) {
    case 'and': {
      let result: Truth = true;
      for (const operand of node.operands) {
        const truth = evaluateTruth(operand, scope);
        if (truth === false) return false;
        if (truth === null) result = null;
      }
      return result;
    }
    case 'or': {
      let result: Truth = false;
      for (const operand of node.operands) {
        const truth = evaluateTruth(operand, scope);
        if (truth === true) return true;
        if (truth === null) result = null;
      }
      return result;
    }
    case 'not':
      return not(evaluateTruth(node.operand, scope));
    case 'compare':
      return compareNodes(node.op, node.left, node.right, scope, evaluateValue(node.left, scope));
    case 'in': {
      const value = evaluateValue(node.value, scope);
      let result: Truth = false;
      for (const item of node.list) {
        const truth = compareNodes('=', node.value, item, scope, value);
        if (truth === true) {
          result = true;
          break;
        }
        if (truth === null) result = null;
      }
      return node.negated ? not(result) : result;
    }
    case 'between': {
      const value = evaluateValue(node.value, scope);
      const low = compareNodes('>=', node.value, node.low, scope, value);
      const high = compareNodes('<=', node.value, node.high, scope, value);
      const result: Truth = low === false || high === false ? false : low === null || high === null ? null : true;
      return node.negated ? not(result) : result;
    }
    case 'isNull': {
      const value = evaluateValue(node.value, scope);
      return (value === null) !== node.negated;
    }
    case 'like': {
      const text = textOf(evaluateValue(node.value, scope));
      const pattern = textOf(evaluateValue(node.pattern, scope));
      if (text === null || pattern === null) return null;
      return likeMatches(text, pattern, node.escape) !== node.negated;
    }
    case 'call':
      switch (node.name) {
        case 'contains':
        case 'startswith':
        case 'endswith': {
          const text = textOf(evaluateValue(node.args[0], scope));
          const part = textOf(evaluateValue(node.args[1], scope));
          if (text === null || part === null) return null;
          if (node.name === 'contains') return text.includes(part);
          return node.name === 'startswith' ? text.startsWith(part) : text.endsWith(part);
        }
        default:
          return truthOf(evaluateValue(node, scope));
      }
    default:
      return truthOf(evaluateValue(node, scope));
  }
}

function isNullLiteral(node: ValueExpression): boolean {
  return node.type === 'literal' && node.literalType === 'null';
}

/** A comparison with the literal-null rule; `leftValue` is passed in so IN evaluates it once. */
function compareNodes(
  op: CompareOperator,
  left: ValueExpression,
  right: ValueExpression,
  scope: EvaluationScope,
  leftValue: unknown,
): Truth {
  if (isNullLiteral(left) || isNullLiteral(right)) {
    if (op !== '=' && op !== '<>') return null;
    const other = isNullLiteral(left) ? evaluateValue(right, scope) : leftValue;
    return (other === null) === (op === '=');
  }
  const order = compareValues(leftValue, evaluateValue(right, scope));
  if (order === null) return null;
  return holdsForOrder(op, order);
}

/** The value of a value node; missing values and values without meaning are null. */
export function evaluateValue(node: ValueExpression | undefined, scope: EvaluationScope): unknown {
  if (node === undefined) return null;
  switch (node.type) {
    case 'literal':
      return literalValue(node);
    case 'field':
      return scope.field(node.path) ?? null;
    case 'placeholder':
      return scope.placeholder(node.path) ?? null;
    case 'call': {
      const text = textOf(evaluateValue(node.args[0], scope));
      if (text === null) return null;
      switch (node.name) {
        case 'tolower':
          return text.toLowerCase();
        case 'toupper':
          return text.toUpperCase();
        case 'trim':
          return text.trim();
        case 'length':
          return Array.from(text).length;
      }
    }
  }
  return null;
}

/** Date literals become Dates so that comparisons read both sides as instants. */
function literalValue(node: LiteralNode): unknown {
  if (node.literalType !== 'date' && node.literalType !== 'datetime') return node.value;
  const parts = matchIsoDate(node.value, 0, 'quoted');
  if (!parts || parts.length !== node.value.length || isoDateProblem(parts)) return null;
  return new Date(isoDateToEpochMillis(parts));
}
