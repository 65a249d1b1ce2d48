/**
 * How an expected value of a test case matches an actual one (a webhook's answer body):
 *
 * - an object matches an object that has every key it lists, each matching — keys it does not
 *   list are not looked at, so `{ Status: Pending }` matches a whole queue item;
 * - an array matches an array of the same length whose elements match in order;
 * - anything else (text, number, boolean, null) matches only the same value.
 *
 * `mismatchOf` answers the first place where they differ, as a path below the expected value, with
 * the two values found there, for a failure that points at the exact line.
 */

export interface Mismatch {
  /** Keys and indexes from the compared value down to the difference; empty for the value itself. */
  path: Array<string | number>;
  expected: unknown;
  /** Undefined where the actual value has nothing. */
  actual: unknown;
  /** What differs, for the message: `is missing`, `has 3 element(s), not 2`, `is "Pending", expected "Complete"`. */
  reason: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function mismatchOf(expected: unknown, actual: unknown, path: Array<string | number> = []): Mismatch | undefined {
  if (isRecord(expected)) {
    if (!isRecord(actual)) return { path, expected, actual, reason: `is ${kindOf(actual)}, not an object` };
    for (const [key, value] of Object.entries(expected)) {
      if (!Object.hasOwn(actual, key)) return { path: [...path, key], expected: value, actual: undefined, reason: 'is missing' };
      const inner = mismatchOf(value, actual[key], [...path, key]);
      if (inner !== undefined) return inner;
    }
    return undefined;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return { path, expected, actual, reason: `is ${kindOf(actual)}, not a list` };
    if (actual.length !== expected.length)
      return { path, expected, actual, reason: `has ${actual.length} element(s), not ${expected.length}` };
    for (const [index, value] of expected.entries()) {
      const inner = mismatchOf(value, actual[index], [...path, index]);
      if (inner !== undefined) return inner;
    }
    return undefined;
  }
  return Object.is(expected, actual) || (expected === 0 && actual === 0)
    ? undefined
    : { path, expected, actual, reason: `is ${shown(actual)}, expected ${shown(expected)}` };
}

function shown(value: unknown): string {
  return value === undefined ? 'absent' : (JSON.stringify(value) ?? String(value));
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'absent';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `the ${typeof value} ${JSON.stringify(value)}`;
}

/** A path as it reads in a message: `data[0].name`; `(the whole value)` for none. */
export function pathText(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(the whole value)';
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}
