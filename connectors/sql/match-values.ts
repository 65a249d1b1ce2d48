/**
 * The equality of a write's match, decided in JS. compare-column.ts writes `column = constant` so
 * that the database selects exactly the records for which the evaluator's `compareValues` (over the
 * record as the connector reads it) says equal; `matchesValue` is that same test on a value as read.
 * `writeMany` uses it to tell which rows of one batched lookup belong to which request, and whether
 * a later request of a batch could find what an earlier one writes.
 *
 * `equalityKey` makes the common pairs cheap: text with text, numbers with numbers (or numeric
 * text). Two values with keys match exactly when their keys are the same; a value without a key
 * (a boolean, a date, a number for a String field, …) has to be compared one by one.
 */
import type { FieldType } from '../../definitions/types.js';
import { compareValues, exactDecimalKey } from '../../definitions/expression/index.js';

/** Whether a value as read (`stored`) is what a match on `constant` finds; null finds only null. */
export function matchesValue(stored: unknown, constant: unknown): boolean {
  if (constant === null || constant === undefined) return stored === null || stored === undefined;
  return compareValues(stored, constant) === 0;
}

/** A string shared by exactly the values that match each other, or undefined (see above). */
export function equalityKey(type: FieldType, value: unknown): string | undefined {
  if (value === null || value === undefined) return 'null';
  switch (type) {
    case 'String':
      // Text equals text only when identical; a number or boolean is compared by what the text spells.
      return typeof value === 'string' ? `s${value}` : undefined;
    case 'Integer':
    case 'Number': {
      // Exact, not as a double: ids past 2^53 that a double rounds alike are different records.
      const key = exactDecimalKey(value);
      return key === null ? undefined : `n${key}`;
    }
    default:
      return undefined;
  }
}
