/**
 * `$filter` text as it is built: conditions that know their precedence (so `and` of an `or` is
 * parenthesized and nothing else is) and whether they are exact, and the pairs the compiler works
 * with.
 *
 * OData filters with two truth values (a comparison with null is false, except `ne`, which is
 * true), our expressions with three (a comparison with null is unknown, and NOT unknown is
 * unknown). So every predicate is compiled to a pair: `holds`, the records for which the evaluator
 * says true, and `fails`, those for which it says false; NOT swaps them, AND and OR combine them as
 * Kleene's logic does. The records where the predicate is unknown are in neither. Each part of a
 * pair is written so that it has the same answer on a service that follows the standard and on one
 * that evaluates the filter as SQL does (SAP CAP on a database): a `ne` is guarded by `ne null`,
 * `not` only ever stands before a condition that cannot be null.
 *
 * A condition is `exact` when it selects exactly those records; an inexact one selects a superset
 * (the service cannot say more, or says it differently than the evaluator), and the records it
 * selects are then checked again with the evaluator in memory. AND and OR of supersets are
 * supersets, so exactness only has to be tracked, never repaired.
 */

export type Condition =
  | { kind: 'constant'; value: boolean; exact: true }
  | {
      kind: 'text';
      text: string;
      precedence: 'primary' | 'and' | 'or';
      exact: boolean;
      /** The operands of an `and` or `or`, so that nested ones flatten and repeated terms are written once. */
      terms?: ReadonlyArray<Extract<Condition, { kind: 'text' }>>;
    };

export const TRUE: Condition = Object.freeze({ kind: 'constant', value: true, exact: true });
export const FALSE: Condition = Object.freeze({ kind: 'constant', value: false, exact: true });

/** A condition that is one term of the grammar: a comparison, a function call, a lambda. */
export function atom(text: string, exact = true): Condition {
  return { kind: 'text', text, precedence: 'primary', exact };
}

/** The same condition, marked as a superset of what the evaluator selects. */
export function inexact(condition: Condition): Condition {
  if (condition.kind === 'constant' && !condition.value) return condition;
  // Without its terms: flattened into another condition, they would count as exact again.
  const { terms: _, ...text } = asText(condition);
  return { ...text, exact: false };
}

function asText(condition: Condition): Extract<Condition, { kind: 'text' }> {
  return condition.kind === 'text' ? condition : { kind: 'text', text: String(condition.value), precedence: 'primary', exact: true };
}

function join(conditions: readonly Condition[], operator: 'and' | 'or'): Condition {
  // false absorbs an `and`, true an `or`.
  const absorbing = operator !== 'and';
  const parts: Array<Extract<Condition, { kind: 'text' }>> = [];
  for (const condition of conditions) {
    if (condition.kind === 'constant') {
      if (condition.value === absorbing) return condition;
      continue;
    }
    const terms = condition.precedence === operator && condition.terms !== undefined ? condition.terms : [condition];
    for (const term of terms) {
      const same = parts.findIndex((part) => part.text === term.text);
      if (same < 0) parts.push(term);
      // Written once for both, the term selects a superset if either did: the evaluator must still check.
      else if (!term.exact && parts[same]!.exact) parts[same] = inexact(parts[same]!) as Extract<Condition, { kind: 'text' }>;
    }
  }
  if (parts.length === 0) return operator === 'and' ? TRUE : FALSE;
  if (parts.length === 1) return parts[0]!;
  const text = parts.map((part) => (operator === 'and' && part.precedence === 'or' ? `(${part.text})` : part.text)).join(` ${operator} `);
  return { kind: 'text', text, precedence: operator, exact: parts.every((part) => part.exact), terms: parts };
}

export function and(conditions: readonly Condition[]): Condition {
  return join(conditions, 'and');
}

export function or(conditions: readonly Condition[]): Condition {
  return join(conditions, 'or');
}

/** `not (c)`; only for conditions that are never null on the service (a lambda, a guarded call). */
export function negate(condition: Condition): Condition {
  if (condition.kind === 'constant') return condition.value ? FALSE : TRUE;
  return {
    kind: 'text',
    text: condition.precedence === 'primary' ? `not ${condition.text}` : `not (${condition.text})`,
    precedence: 'primary',
    exact: condition.exact,
  };
}

/** The text of a whole `$filter`; a constant is `true` or `false`, which every service reads. */
export function filterText(condition: Condition): string {
  return condition.kind === 'constant' ? String(condition.value) : condition.text;
}

/** Where the evaluator says true, and where it says false. */
export interface Pair {
  holds: Condition;
  fails: Condition;
}

export const TRUE_PAIR: Pair = Object.freeze({ holds: TRUE, fails: FALSE });
export const FALSE_PAIR: Pair = Object.freeze({ holds: FALSE, fails: TRUE });
/** A comparison the evaluator calls unknown for every record: neither it nor its NOT selects any. */
export const UNKNOWN_PAIR: Pair = Object.freeze({ holds: FALSE, fails: FALSE });

export function notPair(pair: Pair): Pair {
  return { holds: pair.fails, fails: pair.holds };
}

export function andPairs(pairs: readonly Pair[]): Pair {
  return { holds: and(pairs.map((pair) => pair.holds)), fails: or(pairs.map((pair) => pair.fails)) };
}

export function orPairs(pairs: readonly Pair[]): Pair {
  return { holds: or(pairs.map((pair) => pair.holds)), fails: and(pairs.map((pair) => pair.fails)) };
}

/** A pair both of whose sides are supersets: the evaluator decides in memory. */
export function inexactPair(pair: Pair): Pair {
  return { holds: inexact(pair.holds), fails: inexact(pair.fails) };
}
