/**
 * A value where a filter from outside (GETDATA_WHERE, a start's WhereClause) needs a condition.
 * The language reads a bare value as a truth test (evaluate.ts): `active`, `#params.flag#`. But
 * `123`, `'C-7'` or the field `id` as a whole filter — or as an operand of AND, OR, NOT — keeps
 * every record whose value is not 0 or empty: a client that meant `id = 123` reads, or syncs, every
 * record instead of one. Such a filter is refused, naming the value and the fix.
 *
 * Tests that stay: TRUE and FALSE, a Boolean field, a placeholder (its value is the caller's
 * flag), and a field whose type is not known (a record-store source has no declared shape).
 */
import { isValueExpression, type Expression, type ValueExpression } from './ast.js';
import type { FieldType } from '../types.js';

/** The first value `node` tests for truth that is no flag, or undefined when there is none. */
export function valueAsCondition(
  node: Expression,
  fieldType: (path: readonly string[]) => FieldType | undefined,
): ValueExpression | undefined {
  switch (node.type) {
    case 'and':
    case 'or':
      for (const operand of node.operands) {
        const found = valueAsCondition(operand, fieldType);
        if (found !== undefined) return found;
      }
      return undefined;
    case 'not':
      return valueAsCondition(node.operand, fieldType);
    case 'literal':
      return node.literalType === 'boolean' ? undefined : node;
    case 'field': {
      const type = fieldType(node.path);
      return type === undefined || type === 'Boolean' ? undefined : node;
    }
    default:
      // contains(), startswith(), endswith() are conditions; tolower(), length()… are values.
      return node.type === 'call' && isValueExpression(node) ? node : undefined;
  }
}

/** Why `value` (from valueAsCondition) is no condition, and what to write instead. */
export function valueAsConditionProblem(value: ValueExpression, fieldType: (path: readonly string[]) => FieldType | undefined): string {
  if (value.type === 'field') {
    const name = value.path.join('.');
    return `${name} is ${article(fieldType(value.path) ?? 'a')} field, not a condition: it would keep every record whose ${name} is not 0 or empty; compare it (${name} = …) or test it (${name} IS NOT NULL)`;
  }
  if (value.type === 'literal') {
    const shown = value.literalType === 'string' ? `'${value.value}'` : String(value.value).toUpperCase();
    return `${shown} is a value, not a condition: it would keep every record, or none; compare a field with it (e.g. id = ${value.literalType === 'string' ? shown : String(value.value)})`;
  }
  return `${value.type === 'call' ? `${value.name}()` : 'a value'} gives a value, not a condition; compare it (e.g. ${value.type === 'call' ? `${value.name}(…) = …` : '… = …'})`;
}

function article(type: string): string {
  return /^[AEIOU]/.test(type) ? `an ${type}` : `a ${type}`;
}
