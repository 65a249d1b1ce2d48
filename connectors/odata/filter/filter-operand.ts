/**
 * What a value of a filter becomes in `$filter`: a constant (a literal or a resolved placeholder,
 * known when the filter is compiled and written as a literal), a property of the entity or of one
 * typed group entry (with its declared type and its Edm class), or a value the service cannot
 * compute as the evaluator does (`tolower`, `toupper`, `trim`: SAP CAP on SQLite changes the case
 * of ASCII letters only and trims only spaces), which is "relaxed": the service selects the
 * records where its field has a value, and the evaluator decides in memory.
 *
 * A group field lives in the entry of one type: its conditions are written inside a lambda over
 * the collection, `addresses/any(entry:entry/type eq 'main' and <condition on entry/city>)`. A
 * record has at most one entry per type, so "some entry of type main satisfies it" is "the main
 * entry satisfies it".
 */
import type { FieldType } from '../../../definitions/types.js';
import { ConnectorError } from '../../connector-error.js';
import type { EdmClass } from '../edm-types.js';
import { and, atom, filterText, negate, type Condition, type Pair } from './filter-condition.js';

/** The lambda variable of group conditions. Never written without its `/`, so no property can be mistaken for it. */
export const ENTRY = 'entry';

/** The typed group entry a field belongs to. */
export interface EntryScope {
  /** The collection: a navigation property or a collection of complex type. */
  member: string;
  /** `entry/type eq 'main'`. */
  typeTest: string;
  /** Group and type, to tell whether two fields are of the same entry. */
  id: string;
}

export interface FieldRef {
  /** The value's path inside its scope: `name`, `entry/city`, `length(name)`. */
  path: string;
  /** The property whose null is the value's null (`name` for `length(name)`). */
  nullPath: string;
  type: FieldType;
  edm: EdmClass;
  /** As the filter names it, for messages. */
  label: string;
  entry?: EntryScope;
}

export type Operand =
  | { kind: 'constant'; value: unknown }
  | { kind: 'field'; ref: FieldRef }
  | {
      kind: 'relaxed';
      /** The field the value is computed from. */
      base: FieldRef;
      label: string;
      /** The field's values have no text (Boolean): the value is always null. */
      textless: boolean;
    };

/** `cond` of a field of `entry`, as a condition of the record. */
export function within(entry: EntryScope | undefined, condition: Condition): Condition {
  if (entry === undefined || (condition.kind === 'constant' && !condition.value)) return condition;
  const inner = condition.kind === 'constant' ? atom(entry.typeTest) : and([atom(entry.typeTest), condition]);
  return atom(`${entry.member}/any(${ENTRY}:${filterText(inner)})`, condition.exact);
}

/** The pair of a condition on one field, with both sides moved into the field's entry. */
export function withinPair(entry: EntryScope | undefined, pair: Pair): Pair {
  return { holds: within(entry, pair.holds), fails: within(entry, pair.fails) };
}

/** The field has a value (a group field: the entry exists and its field has a value). */
export function notNull(ref: FieldRef): Condition {
  return within(ref.entry, atom(`${ref.nullPath} ne null`));
}

/** `ref IS NULL`: holds where the field has no value (or its entry is absent), fails where it has one. */
export function nullPair(ref: FieldRef): Pair {
  if (ref.entry === undefined) return { holds: atom(`${ref.nullPath} eq null`), fails: atom(`${ref.nullPath} ne null`) };
  const present = notNull(ref);
  return { holds: negate(present), fails: present };
}

/** A filter construct the odata connector cannot express: HTTP 422 naming it. */
export function unsupported(construct: string, why = ''): ConnectorError {
  return new ConnectorError('unsupported', `the odata connector cannot filter by ${construct}${why ? `: ${why}` : ''}`, {
    details: { connector: 'odata', construct },
  });
}

export function describeRef(ref: FieldRef): string {
  return `'${ref.label}' (${ref.type})`;
}
