/**
 * How JSONata treats one value — as text, as a truth value, as a number, as a field container —
 * for the values a compiled mapping handles itself: undefined, null, booleans, strings, finite
 * numbers and plain objects. Anything else (an array, a function, an infinite number where JSONata
 * checks for one) makes the compiled mapping give the record back to JSONata, which then computes
 * the answer or the error exactly as it always has: `throw DEFER`.
 */

/** Thrown inside a compiled mapping when a value leaves the compiled subset; never escapes it. */
export const DEFER: unique symbol = Symbol('syncline.mapping.defer');

/** What one evaluation reads: the input, the caller's bindings, and the clock of $now(). */
export interface Scope {
  readonly input: unknown;
  readonly bindings: object | undefined;
  /** Milliseconds of the first $now()/$millis() of this evaluation; every later call gives the same. */
  clock: number | undefined;
}

/** A compiled piece of a mapping. */
export type Compiled = (scope: Scope) => unknown;

/** JSONata's test for a function value (its own, or a host function): lookups skip such objects. */
export function isJsonataFunction(value: object): boolean {
  return (
    typeof value === 'function' ||
    (value as { _jsonata_function?: unknown })._jsonata_function === true ||
    (value as { _jsonata_lambda?: unknown })._jsonata_lambda === true
  );
}

/**
 * `container.name` as one JSONata path step over a value that is not an array: own properties
 * only, nothing of a non-object or of a function. An array container defers (JSONata maps the
 * step over it and flattens, which this module does not attempt).
 */
export function lookup(container: unknown, name: string): unknown {
  if (container === null || typeof container !== 'object') return undefined;
  if (Array.isArray(container)) throw DEFER;
  if (isJsonataFunction(container) || !Object.hasOwn(container, name)) return undefined;
  return (container as Record<string, unknown>)[name];
}

/**
 * `$string` of a defined value and each side of `&`: JSON text, with non-integers cut to 15
 * significant digits (so 0.1 + 0.2 is "0.3"). JSON.stringify already writes -0 as "0" and 1e21
 * as "1e+21". Objects defer: JSONata applies the same number rule deep inside them.
 */
export function textOf(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw DEFER; // JSONata's D3001, NaN included.
      return Number.isInteger(value) ? JSON.stringify(value) : JSON.stringify(Number(value.toPrecision(15)));
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      if (value === null) return 'null';
      throw DEFER;
  }
}

/**
 * JSONata's effective boolean value of a defined, non-object value ($boolean, `and`, `or`, `? :`).
 * NaN is false; an infinite number is JSONata's D1001 error, so it defers, as do objects (their
 * truth depends on their keys, and functions inside them count as false).
 */
export function truthOf(value: unknown): boolean {
  switch (typeof value) {
    case 'undefined':
      return false;
    case 'boolean':
      return value;
    case 'string':
      return value.length > 0;
    case 'number':
      if (Number.isNaN(value)) return false;
      if (!Number.isFinite(value)) throw DEFER;
      return value !== 0;
    default:
      if (value === null) return false;
      throw DEFER;
  }
}

/** An operand of arithmetic: a finite number, or undefined (the result is then undefined). */
export function isArithmeticOperand(value: unknown): value is number | undefined {
  return value === undefined || (typeof value === 'number' && Number.isFinite(value));
}

/** A primitive JSONata compares with `===` in `=` and `!=` (objects compare deeply: they defer). */
export function isPlainPrimitive(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}
