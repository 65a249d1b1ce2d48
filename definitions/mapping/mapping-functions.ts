/**
 * The JSONata functions a compiled mapping calls itself, each for the arguments JSONata's
 * signature check lets through unchanged. Any other argument (a number where a string is
 * expected, null for $number, a string $number would read as hex) defers the record to JSONata,
 * which then answers or raises its own error. An argument left out behaves as undefined, as it
 * does after JSONata's signature check.
 */
import { DEFER, textOf, truthOf, type Scope } from './mapping-values.js';

export interface MappingFunction {
  /** Arguments the call must give; fewer would make JSONata use the context value instead. */
  readonly min: number;
  readonly max: number;
  readonly call: (scope: Scope, a: unknown, b: unknown, c: unknown) => unknown;
}

function text(value: unknown): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  throw DEFER;
}

function numeric(value: unknown): number | undefined {
  if (value === undefined || typeof value === 'number') return value;
  throw DEFER;
}

/** Strings measured and cut in code points, not UTF-16 units, as JSONata does. */
function codePoints(value: string): string[] {
  return Array.from(value);
}

function substring(value: string, start: number, length: number | undefined): string {
  const chars = codePoints(value);
  const from = chars.length + start < 0 ? 0 : start;
  if (length === undefined) return chars.slice(from).join('');
  if (length <= 0) return '';
  return chars.slice(from, from >= 0 ? from + length : chars.length + from + length).join('');
}

/** JSONata's whitespace rule: runs of space, tab, CR, LF become one space, then one is cut each end. */
function trim(value: string): string {
  let result = value.replace(/[ \t\n\r]+/g, ' ');
  if (result.startsWith(' ')) result = result.slice(1);
  if (result.endsWith(' ')) result = result.slice(0, -1);
  return result;
}

/**
 * Half-to-even rounding at `precision` decimals. The decimal point moves by rewriting the
 * exponent of the number's text, not by multiplying, so 1.005 keeps its digits — the same steps
 * as JSONata, hence the same answers (-0 becomes 0, as JSON has no -0).
 */
function round(value: number, precision: number | undefined): number {
  const shift = (n: number, by: number): number => {
    const [mantissa, exponent] = n.toString().split('e');
    return Number(`${mantissa}e${exponent === undefined ? by : Number(exponent) + by}`);
  };
  const shifted = precision ? shift(value, precision) : value;
  let result = Math.round(shifted);
  if (Math.abs(result - shifted) === 0.5 && Math.abs(result % 2) === 1) result -= 1;
  if (precision) result = shift(result, -precision);
  return Object.is(result, -0) ? 0 : result;
}

/** Decimal text JSONata's $number accepts; other text (hex, words) defers. */
const decimalText = /^-?[0-9]+(\.[0-9]+)?([Ee][-+]?[0-9]+)?$/;

function toNumber(value: unknown): number | undefined {
  switch (typeof value) {
    case 'undefined':
    case 'number':
      return value;
    case 'boolean':
      return value ? 1 : 0;
    case 'string':
      if (decimalText.test(value) && Number.isFinite(Number(value))) return Number.parseFloat(value);
      throw DEFER;
    default:
      throw DEFER;
  }
}

/** $now() and $millis() read one clock per evaluation, as JSONata stamps each evaluate call. */
function clock(scope: Scope): number {
  scope.clock ??= Date.now();
  return scope.clock;
}

const one = (call: (value: unknown) => unknown): MappingFunction => ({ min: 1, max: 1, call: (_scope, a) => call(a) });
const onText = (call: (value: string) => unknown): MappingFunction =>
  one((a) => {
    const value = text(a);
    return value === undefined ? undefined : call(value);
  });
const onNumber = (call: (value: number) => number): MappingFunction =>
  one((a) => {
    const value = numeric(a);
    return value === undefined ? undefined : call(value);
  });

/** Name (without `$`) → implementation. A null prototype: `$constructor` is not a function here. */
export const mappingFunctions: Readonly<Record<string, MappingFunction>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, MappingFunction>, {
    string: one((a) => (a === undefined ? undefined : textOf(a))),
    lowercase: onText((value) => value.toLowerCase()),
    uppercase: onText((value) => value.toUpperCase()),
    trim: onText(trim),
    length: onText((value) => codePoints(value).length),
    number: one(toNumber),
    substring: {
      min: 2,
      max: 3,
      call: (_scope, a, b, c) => {
        const value = text(a);
        // An undefined start is legal in JSONata but odd (the whole string); leave it to JSONata.
        if (typeof b !== 'number') throw DEFER;
        const length = numeric(c);
        return value === undefined ? undefined : substring(value, b, length);
      },
    },
    exists: one((a) => a !== undefined),
    boolean: one((a) => (a === undefined ? undefined : truthOf(a))),
    not: one((a) => (a === undefined ? undefined : !truthOf(a))),
    round: {
      min: 1,
      max: 2,
      call: (_scope, a, b) => {
        const value = numeric(a);
        const precision = numeric(b);
        return value === undefined ? undefined : round(value, precision);
      },
    },
    floor: onNumber(Math.floor),
    ceil: onNumber(Math.ceil),
    abs: onNumber(Math.abs),
    now: { min: 0, max: 0, call: (scope) => new Date(clock(scope)).toISOString() },
    millis: { min: 0, max: 0, call: (scope) => clock(scope) },
  } satisfies Record<string, MappingFunction>),
);
