/**
 * How a sync finds the target records of its mapped records. When `match.where` is an AND of
 * `Field = #Placeholder#` equalities on plain fields of the target, the search is batched: one
 * read per page with every page's key values (`Field IN (…)`, or an OR of ANDs for several
 * fields), results paired with mapped records in memory. Anything else (ranges, functions, group
 * entries, OR) is searched record by record with the expression as written.
 */
import type { ObjectDescription, PlaceholderValues } from '../../connectors/connection.js';
import type { FieldType } from '../../definitions/types.js';
import { booleanFrom, exactDecimalKey, type Expression, type PlaceholderNode } from '../../definitions/expression/index.js';

export interface Equality {
  field: string;
  type: FieldType;
  placeholder: readonly string[];
}

export type MatchPlan =
  /** No match: every record is created. */
  { kind: 'create' } | { kind: 'batched'; equalities: readonly Equality[] } | { kind: 'search'; where: Expression };

export function matchPlan(matchWhere: Expression | undefined, target: ObjectDescription): MatchPlan {
  if (matchWhere === undefined) return { kind: 'create' };
  const terms = matchWhere.type === 'and' ? matchWhere.operands : [matchWhere];
  const fieldTypes = new Map(target.fields.map((field) => [field.name, field.type]));
  const equalities: Equality[] = [];
  for (const term of terms) {
    if (term.type !== 'compare' || term.op !== '=') return { kind: 'search', where: matchWhere };
    const [field, placeholder] = term.left.type === 'field' ? [term.left, term.right] : [term.right, term.left];
    if (field.type !== 'field' || placeholder.type !== 'placeholder' || field.path.length !== 1)
      return { kind: 'search', where: matchWhere };
    const name = field.path[0]!;
    const type = fieldTypes.get(name);
    if (type === undefined || type === 'Json' || equalities.some((e) => e.field === name)) return { kind: 'search', where: matchWhere };
    equalities.push({ field: name, type, placeholder: (placeholder as PlaceholderNode).path });
  }
  return { kind: 'batched', equalities };
}

/** The equality values of a mapped record, or undefined when one is null (`= null` matches nothing). */
export function equalityValues(equalities: readonly Equality[], placeholders: PlaceholderValues): unknown[] | undefined {
  const values: unknown[] = [];
  for (const equality of equalities) {
    const value = placeholders(equality.placeholder);
    if (value === null || value === undefined) return undefined;
    values.push(value);
  }
  return values;
}

/**
 * A value as text that equal values share, by the target field's type, as the database compares
 * them: 7, "7" and "7.0" for a Number (exactly: 9007199254740993 is not 9007199254740992); true, 1 and "true" for a Boolean; a Date and its ISO text.
 * Strings exactly (see MatchIndex.find for collations that equate more).
 */
export function comparable(type: FieldType, value: unknown): string {
  if (type === 'Integer' || type === 'Number') {
    // Exact, not as a double: ids past 2^53 that a double rounds alike are different records.
    const key = exactDecimalKey(value);
    if (key !== null) return `n${key}`;
  } else if (type === 'Boolean') {
    const truth = booleanFrom(value);
    if (truth !== null) return `b${truth}`;
  } else if (type === 'Date' || type === 'DateTime') {
    const time = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
    if (!Number.isNaN(time)) return `d${time}`;
  }
  const text = value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return `s${text}`;
}

export function tupleKey(equalities: readonly Equality[], values: readonly unknown[]): string {
  return values.map((value, index) => comparable(equalities[index]!.type, value)).join('\u0000');
}
