/**
 * LIKE and the string predicates `contains`, `startswith`, `endswith` as OData's own functions,
 * which match literal text (a `%` or `_` in their argument is just a character) case-sensitively,
 * as the evaluator does. A LIKE pattern becomes one of them when it is literal text with `%` at
 * most at its ends:
 *
 * | pattern    | becomes                   |
 * |------------|---------------------------|
 * | `'Ada'`    | `name eq 'Ada'`           |
 * | `'Ada%'`   | `startswith(name,'Ada')`  |
 * | `'%ace'`   | `endswith(name,'ace')`    |
 * | `'%da%'`   | `contains(name,'da')`     |
 * | `'%'`      | `name ne null`            |
 * | `''`       | `name eq ''`              |
 *
 * `_` (one character) and `%` between characters have no OData counterpart and are refused, as is
 * LIKE on anything but a String field (the evaluator matches the text of numbers and dates too;
 * OData's functions take text only). The pattern's ESCAPE character is honoured: `'100!%%' ESCAPE
 * '!'` is `startswith(name,'100%')`.
 */
import { compileLikePattern } from '../../../definitions/expression/like-pattern.js';
import { stringLiteral } from '../odata-literals.js';
import { and, atom, FALSE, negate, UNKNOWN_PAIR, type Pair } from './filter-condition.js';
import { unsupported, withinPair, type FieldRef } from './filter-operand.js';

const ANY_ONE = -1;
const ANY_RUN = -2;

/** What a pattern asks: text at the start, at the end, anywhere, all of it — or any text at all. */
export type MatchShape = { kind: 'equals' | 'startswith' | 'endswith' | 'contains'; text: string } | { kind: 'any' };

/** The shape of a LIKE pattern; refuses the ones OData cannot say. */
export function likeShape(pattern: string, escape: string | null): MatchShape {
  const compiled = compileLikePattern(pattern, escape);
  if (compiled.includes(ANY_ONE))
    throw unsupported("a LIKE pattern with '_' (exactly one character)", 'OData has no such wildcard; use % at the start or end only');
  const leading = compiled[0] === ANY_RUN;
  const trailing = compiled.length > (leading ? 1 : 0) && compiled[compiled.length - 1] === ANY_RUN;
  const inner = compiled.slice(leading ? 1 : 0, trailing ? -1 : undefined);
  if (inner.includes(ANY_RUN))
    throw unsupported("a LIKE pattern with '%' between characters", 'OData matches text at the start, the end or anywhere, not both');
  const text = String.fromCodePoint(...inner);
  if (leading && text === '') return { kind: 'any' };
  if (leading && trailing) return { kind: 'contains', text };
  if (leading) return { kind: 'endswith', text };
  if (trailing) return { kind: 'startswith', text };
  return { kind: 'equals', text };
}

/** The shape of `contains`, `startswith` or `endswith` with a literal argument. */
export function predicateShape(name: 'contains' | 'startswith' | 'endswith', part: string): MatchShape {
  return part === '' ? { kind: 'any' } : { kind: name, text: part };
}

/** Where `ref` (a String field) matches the shape, and where it has text that does not. */
export function matchPair(ref: FieldRef, shape: MatchShape, construct: string): Pair {
  if (ref.type === 'Boolean') return UNKNOWN_PAIR;
  if (ref.type !== 'String' || ref.edm !== 'text') {
    throw unsupported(`${construct} on the ${ref.type} field '${ref.label}'`, "OData's string functions take text only");
  }
  const present = atom(`${ref.nullPath} ne null`);
  if (shape.kind === 'any') return withinPair(ref.entry, { holds: present, fails: FALSE });
  if (shape.kind === 'equals') {
    const text = stringLiteral(shape.text);
    return withinPair(ref.entry, { holds: atom(`${ref.path} eq ${text}`), fails: and([present, atom(`${ref.path} ne ${text}`)]) });
  }
  const matches = atom(`${shape.kind}(${ref.path},${stringLiteral(shape.text)})`);
  return withinPair(ref.entry, { holds: matches, fails: and([present, negate(matches)]) });
}
