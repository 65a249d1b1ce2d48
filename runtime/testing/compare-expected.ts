/**
 * How `syncline test` compares what a case expects with what came out: deep, path by path, so a
 * failure can name the field that differs and the line of the test file that expects it.
 *
 * The rules, as someone writing YAML expects them (docs/testing.md states them):
 * - objects: the same fields; a field missing on one side is a difference (JSONata leaves out a
 *   field whose value is missing, so `City: null` expects a field that holds null, not none);
 *   the order of fields does not matter;
 * - lists: the same items in the same order;
 * - numbers: equal, or apart by no more than floating-point rounding (0.1 + 0.2 is 0.3);
 * - dates: two ISO 8601 dates or date-times, or a Date and one, are equal when they name the same
 *   instant (`2024-05-01T12:00:00+02:00` is `2024-05-01T10:00:00.000Z`; a date alone is midnight UTC);
 * - anything else: the same type and value; the number 42 is not the text '42'.
 */
import { toEpochMillis } from '../../definitions/expression/iso-dates.js';

export type ValuePath = ReadonlyArray<string | number>;

/** One way `actual` is not what was expected, at `path` below the compared values. */
export interface Difference {
  path: ValuePath;
  /** changed: both have a value there; missing: only the expectation; unexpected: only the actual value. */
  kind: 'changed' | 'missing' | 'unexpected';
  expected?: unknown;
  actual?: unknown;
}

export interface CompareOptions {
  /** Paths left out of the comparison: `SyncedAt`, `lines[0].total` (or `lines.0.total`). */
  ignore?: readonly string[];
}

/** Every difference between `expected` and `actual`; none means they match. */
export function differences(expected: unknown, actual: unknown, options: CompareOptions = {}): Difference[] {
  const ignored = new Set((options.ignore ?? []).map(normalizePath));
  const found: Difference[] = [];
  walk(expected, actual, [], ignored, found);
  return found;
}

/** Whether two values match under the rules above. */
export function matches(expected: unknown, actual: unknown): boolean {
  return differences(expected, actual).length === 0;
}

function walk(expected: unknown, actual: unknown, path: Array<string | number>, ignored: ReadonlySet<string>, found: Difference[]): void {
  if (ignored.size > 0 && ignored.has(path.join('.'))) return;
  if (isPlainObject(expected) && isPlainObject(actual)) {
    for (const name of Object.keys(expected)) {
      const next = [...path, name];
      if (ignored.has(next.join('.'))) continue;
      if (!has(actual, name)) found.push({ path: next, kind: 'missing', expected: expected[name] });
      else walk(expected[name], actual[name], next, ignored, found);
    }
    for (const name of Object.keys(actual)) {
      const next = [...path, name];
      if (!has(expected, name) && actual[name] !== undefined && !ignored.has(next.join('.')))
        found.push({ path: next, kind: 'unexpected', actual: actual[name] });
    }
    return;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const shared = Math.min(expected.length, actual.length);
    for (let i = 0; i < shared; i++) walk(expected[i], actual[i], [...path, i], ignored, found);
    for (let i = shared; i < expected.length; i++) found.push({ path: [...path, i], kind: 'missing', expected: expected[i] });
    for (let i = shared; i < actual.length; i++) found.push({ path: [...path, i], kind: 'unexpected', actual: actual[i] });
    return;
  }
  if (!sameScalar(expected, actual)) found.push({ path, kind: 'changed', expected, actual });
}

/** Scalars (and mismatched shapes, which never match). */
export function sameScalar(expected: unknown, actual: unknown): boolean {
  if (Object.is(expected, actual) || expected === actual) return true;
  if (typeof expected === 'number' && typeof actual === 'number') {
    if (!Number.isFinite(expected) || !Number.isFinite(actual)) return false;
    return Math.abs(expected - actual) <= 4 * Number.EPSILON * Math.max(Math.abs(expected), Math.abs(actual));
  }
  if (isDateLike(expected) && isDateLike(actual)) {
    const a = toEpochMillis(expected);
    const b = toEpochMillis(actual);
    return a !== null && a === b;
  }
  return false;
}

/** A Date, or text that is an ISO date or date-time through and through. */
function isDateLike(value: unknown): boolean {
  return (value instanceof Date || typeof value === 'string') && toEpochMillis(value) !== null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date) && !Buffer.isBuffer(value);
}

function has(object: Record<string, unknown>, name: string): boolean {
  return Object.hasOwn(object, name) && object[name] !== undefined;
}

/** `value` without the fields at `paths` (the ignored ones), for showing it beside the expectation. */
export function withoutPaths(value: unknown, paths: readonly string[]): unknown {
  const drop = new Set(paths.map(normalizePath));
  if (drop.size === 0) return value;
  const strip = (node: unknown, at: string): unknown => {
    if (Array.isArray(node)) return node.map((item, i) => strip(item, at === '' ? String(i) : `${at}.${i}`));
    if (!isPlainObject(node)) return node;
    const kept = Object.entries(node).filter(([name]) => !drop.has(at === '' ? name : `${at}.${name}`));
    return Object.fromEntries(kept.map(([name, item]) => [name, strip(item, at === '' ? name : `${at}.${name}`)]));
  };
  return strip(value, '');
}

/** `lines[0].total` and `lines.0.total` are one path. */
function normalizePath(path: string): string {
  return path.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, '');
}

/** `Email`, `lines[0].total`: a path as the YAML reader writes it; `(the whole value)` for []. */
export function showPath(path: ValuePath): string {
  let out = '';
  for (const segment of path) out += typeof segment === 'number' ? `[${segment}]` : out === '' ? segment : `.${segment}`;
  return out === '' ? '(the whole value)' : out;
}

/** A value in one line for a message: JSON, a Date as its ISO text, nothing as "nothing". */
export function showValue(value: unknown, max = 120): string {
  if (value === undefined) return 'nothing';
  const text =
    value instanceof Date
      ? value.toISOString()
      : JSON.stringify(value, (_key, v: unknown) => (Buffer.isBuffer(v) ? `<${v.length} bytes>` : v));
  const shown = text ?? String(value);
  return shown.length > max ? `${shown.slice(0, max - 1)}…` : shown;
}

/** One line per difference: `Email: expected "ada@example.com", got "Ada@example.com"`. */
export function describeDifference(difference: Difference): string {
  const where = showPath(difference.path);
  switch (difference.kind) {
    case 'missing':
      return `${where}: expected ${showValue(difference.expected)}, but there is no ${where}`;
    case 'unexpected':
      return `${where}: not expected, but there is ${showValue(difference.actual)}`;
    default:
      return `${where}: expected ${showValue(difference.expected)}${typeHint(difference.expected, difference.actual)}, got ${showValue(difference.actual)}${typeHint(difference.actual, difference.expected)}`;
  }
}

/** "(a number)" beside "(text)" when the values only differ in type: 42 against '42'. */
function typeHint(value: unknown, other: unknown): string {
  if (value === null || other === null || typeof value === typeof other || typeof value === 'object' || typeof other === 'object')
    return '';
  if (String(value) !== String(other)) return '';
  return typeof value === 'string' ? ' (text)' : ` (a ${typeof value})`;
}
