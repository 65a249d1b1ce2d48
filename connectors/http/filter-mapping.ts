/**
 * Query parameters that narrow a read, from the filter and the object's declared `filters`.
 *
 * Only what is certainly no narrower than the filter is sent: a top-level AND term (or the whole
 * filter, when it is one term) comparing a field with a constant — a literal, or a placeholder
 * resolved to a value — for which the object declares a parameter with an operator that holds at
 * least for every record the term holds for. The read then fetches fewer records and checks every
 * one of them against the whole filter in memory (records/in-memory-read.ts), so the answer is
 * exact even when the API ignores a parameter or answers more than it says.
 *
 * | filter term                              | parameter of op   |
 * |------------------------------------------|-------------------|
 * | `f = c`                                  | `=`; `in`         |
 * | `f <> c`                                 | `<>`              |
 * | `f < c`, `f <= c`                        | `<` (only `<`), `<=` |
 * | `f > c`, `f >= c`                        | `>` (only `>`), `>=` |
 * | `f IN (c1, c2…)`                         | `in`              |
 * | `f BETWEEN a AND b`                      | `>=` and `<=`     |
 * | `contains(f, c)`, `f LIKE '%c%'`         | `contains`        |
 * | `startswith(f, c)`, `f LIKE 'c%'`        | `startswith`      |
 * | `endswith(f, c)`, `f LIKE '%c'`          | `endswith`        |
 * | `f LIKE p`                               | `like` (regex, or text) |
 *
 * A constant is sent only when the evaluator compares it with the field's values as the API most
 * plausibly does, so that a parameter means what the term means: text for a String field (a
 * number against text compares as numbers, which no text parameter does), a number or numeric
 * text for Integer and Number, a boolean (or 1/0, 'true'/'false') for Boolean, a date for Date
 * and an instant for DateTime (sent in the canonical form records carry), never for Json; never
 * null, which makes a comparison unknown (or, as a literal, means IS NULL). Text operators apply
 * to String fields only. Anything else is left to the memory check.
 */
import { booleanFrom, numberFromText, type Expression, type ValueExpression } from '../../definitions/expression/index.js';
import type { CompareOperator } from '../../definitions/expression/ast.js';
import { compileLikePattern } from '../../definitions/expression/like-pattern.js';
import type { FieldType } from '../../definitions/types.js';
import type { PlaceholderValues } from '../connection.js';
import { checkFieldValue } from '../records/field-values.js';
import { resolveFieldPath, type RecordObject } from '../records/object-model.js';

export const filterOperators = ['=', '<>', '<', '<=', '>', '>=', 'in', 'contains', 'startswith', 'endswith', 'like'] as const;
export type FilterOperator = (typeof filterOperators)[number];

/** One declared parameter: `{ field: score, op: '>=', param: score_gte }`. */
export interface FilterMapping {
  field: string;
  path: readonly string[];
  op: FilterOperator;
  param: string;
  value: 'text' | 'regex';
  /** `in`: the values joined into one parameter; absent, the parameter is repeated. */
  separator?: string;
}

/** Most values of one `in` parameter: a long IN list (a sync's batched match search) is not worth a URL that long. */
export const MAX_IN_VALUES = 500;
/** Most characters of all parameters of one read; past it the rest are left to memory. */
export const MAX_QUERY_CHARS = 6000;

type Need = 'compare' | 'text';

/** Which declared operators serve a term of operator `op`: each holds whenever `op` holds. */
const SERVED_BY: Readonly<Record<CompareOperator, readonly FilterOperator[]>> = {
  '=': ['=', 'in'],
  '<>': ['<>'],
  '<': ['<', '<='],
  '<=': ['<='],
  '>': ['>', '>='],
  '>=': ['>='],
};

const FLIPPED: Readonly<Record<CompareOperator, CompareOperator>> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** The value of a constant operand, or undefined when it is no constant or has no value. */
function constantOf(node: ValueExpression, placeholders: PlaceholderValues): { value: unknown; literal: string } | undefined {
  if (node.type === 'literal') return node.value === null ? undefined : { value: node.value, literal: node.literalType };
  if (node.type === 'placeholder') {
    const value = placeholders(node.path);
    return value === null || value === undefined ? undefined : { value, literal: 'placeholder' };
  }
  return undefined;
}

/** The constant as the parameter's text, when comparing it with a field of `type` means what the API's comparison means. */
export function parameterText(type: FieldType, constant: { value: unknown; literal: string }, need: Need): string | undefined {
  const { value, literal } = constant;
  if (need === 'text') return type === 'String' && typeof value === 'string' ? value : undefined;
  switch (type) {
    case 'String':
      return typeof value === 'string' && literal !== 'date' && literal !== 'datetime' ? value : undefined;
    case 'Integer':
    case 'Number': {
      const number = typeof value === 'number' ? value : typeof value === 'string' ? numberFromText(value) : null;
      return number === null || !Number.isFinite(number) ? undefined : String(number);
    }
    case 'Boolean': {
      const flag = booleanFrom(value);
      return flag === null ? undefined : String(flag);
    }
    case 'Date':
    case 'DateTime':
      return dateText(type, value, literal);
    case 'Json':
      return undefined;
  }
}

/**
 * A date or date-time constant as records carry it. A literal of the field's kind compares as an
 * instant, the same order as the canonical text; other text compares as text, so it is sent only
 * when it already is canonical (otherwise its text order and the canonical one differ).
 */
function dateText(type: 'Date' | 'DateTime', value: unknown, literal: string): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = canonical(type, value);
  if (literal === (type === 'Date' ? 'date' : 'datetime')) return text;
  return literal === 'string' || literal === 'placeholder' ? (text === value ? text : undefined) : undefined;
}

function canonical(type: 'Date' | 'DateTime', text: string): string | undefined {
  try {
    return checkFieldValue(type, text, { label: '' }) as string;
  } catch {
    return undefined;
  }
}

const escapeRegex = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
/**
 * One code point (a surrogate pair included), as LIKE's `_` means, in a regex without the u flag
 * (an API's engine may know no other). A high surrogate is never one alone, or backtracking would
 * let `__` match one emoji; a lone one is broken text, which no API sends. No lookahead: RE2 has none.
 */
const ANY_CODE_POINT = '(?:[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]|[^\\uD800-\\uDBFF])';

/** A LIKE pattern as an anchored regular expression matching the same texts. */
export function likeRegex(pattern: string, escape: string | null): string {
  const parts = compileLikePattern(pattern, escape).map((code) =>
    code === -1 ? ANY_CODE_POINT : code === -2 ? '[\\s\\S]*' : escapeRegex(String.fromCodePoint(code)),
  );
  return `^${parts.join('')}$`;
}

/** `'%abc%'`, `'abc%'` or `'%abc'` with no other wildcard, as the text operator it is. */
function likeShape(pattern: string, escape: string | null): { op: 'contains' | 'startswith' | 'endswith'; text: string } | undefined {
  const compiled = compileLikePattern(pattern, escape);
  const inner = compiled.filter((code, index) => !(code === -2 && (index === 0 || index === compiled.length - 1)));
  if (inner.some((code) => code < 0) || inner.length === 0) return undefined;
  const text = String.fromCodePoint(...inner);
  const leading = compiled[0] === -2;
  const trailing = compiled[compiled.length - 1] === -2;
  if (leading && trailing) return { op: 'contains', text };
  if (trailing) return { op: 'startswith', text };
  if (leading) return { op: 'endswith', text };
  return undefined;
}

/** A candidate parameter of one term: served by the first declared mapping among `ops` for the field. */
interface Candidate {
  path: readonly string[];
  ops: readonly FilterOperator[];
  /** The values, or (text operators) the text, as the mapping's op takes them. */
  values: (mapping: FilterMapping) => string[] | undefined;
}

function termCandidates(term: Expression, object: RecordObject, placeholders: PlaceholderValues): Candidate[] {
  const typeOf = (path: readonly string[]): FieldType | undefined => {
    try {
      return resolveFieldPath(object, path).field.type;
    } catch {
      return undefined;
    }
  };
  switch (term.type) {
    case 'compare': {
      const [field, other, op] = term.left.type === 'field' ? [term.left, term.right, term.op] : [term.right, term.left, FLIPPED[term.op]];
      const constant = constantOf(other, placeholders);
      const type = field.type === 'field' ? typeOf(field.path) : undefined;
      if (field.type !== 'field' || constant === undefined || type === undefined) return [];
      const text = parameterText(type, constant, 'compare');
      return text === undefined ? [] : [{ path: field.path, ops: SERVED_BY[op], values: () => [text] }];
    }
    case 'in': {
      if (term.negated || term.value.type !== 'field' || term.list.length > MAX_IN_VALUES) return [];
      const type = typeOf(term.value.path);
      if (type === undefined) return [];
      const texts = term.list.map((item) => {
        const constant = constantOf(item, placeholders);
        return constant === undefined ? undefined : parameterText(type, constant, 'compare');
      });
      if (texts.some((text) => text === undefined)) return [];
      const values = [...new Set(texts as string[])];
      return [{ path: term.value.path, ops: values.length === 1 ? ['in', '='] : ['in'], values: () => values }];
    }
    case 'between': {
      if (term.negated || term.value.type !== 'field') return [];
      const low: Expression = { type: 'compare', op: '>=', left: term.value, right: term.low, start: 0, end: 0 };
      const high: Expression = { type: 'compare', op: '<=', left: term.value, right: term.high, start: 0, end: 0 };
      return [...termCandidates(low, object, placeholders), ...termCandidates(high, object, placeholders)];
    }
    case 'call': {
      if (term.name !== 'contains' && term.name !== 'startswith' && term.name !== 'endswith') return [];
      const [field, other] = term.args;
      if (field?.type !== 'field' || other === undefined || typeOf(field.path) !== 'String') return [];
      const constant = constantOf(other, placeholders);
      const text = constant === undefined ? undefined : parameterText('String', constant, 'text');
      if (text === undefined || text === '') return [];
      const op = term.name;
      return [{ path: field.path, ops: [op], values: (mapping) => [mapping.value === 'regex' ? textRegex(op, text) : text] }];
    }
    case 'like': {
      if (term.negated || term.value.type !== 'field' || typeOf(term.value.path) !== 'String') return [];
      const constant = constantOf(term.pattern, placeholders);
      const pattern = constant === undefined ? undefined : parameterText('String', constant, 'text');
      if (pattern === undefined) return [];
      const escape = term.escape;
      const shape = likeShape(pattern, escape);
      const candidates: Candidate[] = [
        {
          path: term.value.path,
          ops: ['like'],
          // Sent as text only when the API reads the very pattern we do.
          values: (mapping) => (mapping.value === 'regex' ? [likeRegex(pattern, escape)] : escape === null ? [pattern] : undefined),
        },
      ];
      if (shape !== undefined) {
        candidates.push({
          path: term.value.path,
          ops: [shape.op],
          values: (mapping) => [mapping.value === 'regex' ? textRegex(shape.op, shape.text) : shape.text],
        });
      }
      return candidates;
    }
    default:
      return [];
  }
}

function textRegex(op: 'contains' | 'startswith' | 'endswith', text: string): string {
  const escaped = escapeRegex(text);
  return op === 'startswith' ? `^${escaped}` : op === 'endswith' ? `${escaped}$` : escaped;
}

/** About how many characters `param=value` takes in a URL, encoded, once per value. */
function queryLength(param: string, value: string | string[]): number {
  return (Array.isArray(value) ? value : [value]).reduce(
    (sum, one) => sum + encodeURIComponent(param).length + encodeURIComponent(one).length + 2,
    0,
  );
}

/**
 * The parameter's value for `values` by the mapping: one text, the texts joined by the `in`
 * mapping's separator, or the texts to repeat. Undefined when a value holds the separator: the API
 * would split it into other values and lose the records that have it (no escape is declared).
 */
function parameterValue(mapping: FilterMapping, values: readonly string[]): string | string[] | undefined {
  const { separator } = mapping;
  if (mapping.op === 'in' && separator !== undefined) {
    return values.some((value) => value.includes(separator)) ? undefined : values.join(separator);
  }
  return values.length === 1 ? values[0]! : [...values];
}

/** The top-level AND terms of a filter. */
function andTerms(filter: Expression): readonly Expression[] {
  return filter.type === 'and' ? filter.operands.flatMap((operand) => andTerms(operand)) : [filter];
}

/**
 * The query parameters of the declared `filters` that the filter's terms allow, each parameter
 * once (the first term that fills it). Empty when nothing can be sent; the caller checks every
 * record in memory anyway.
 */
export function filterParameters(
  object: RecordObject,
  mappings: readonly FilterMapping[],
  filter: Expression | undefined,
  placeholders: PlaceholderValues = () => undefined,
): Record<string, string | string[]> {
  const parameters: Record<string, string | string[]> = {};
  if (filter === undefined || mappings.length === 0) return parameters;
  let length = 0;
  for (const term of andTerms(filter)) {
    for (const candidate of termCandidates(term, object, placeholders)) {
      const dotted = candidate.path.join('.');
      for (const op of candidate.ops) {
        const mapping = mappings.find((one) => one.field === dotted && one.op === op && !Object.hasOwn(parameters, one.param));
        const values = mapping && candidate.values(mapping);
        const value = mapping && values && parameterValue(mapping, values);
        if (mapping === undefined || value === undefined) continue;
        const chars = queryLength(mapping.param, value);
        if (length + chars > MAX_QUERY_CHARS) continue;
        length += chars;
        parameters[mapping.param] = value;
        break;
      }
    }
  }
  return parameters;
}

/**
 * The parameters of declared `=` (or `in`) mappings for field values known exactly — an id, the
 * match of a write — as filterParameters would send for `field = value` terms.
 */
export function equalityParameters(
  object: RecordObject,
  mappings: readonly FilterMapping[],
  values: Readonly<Record<string, unknown>>,
): Record<string, string> {
  const parameters: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === null || value === undefined) continue;
    const field = object.fields.get(name);
    const text = field === undefined ? undefined : parameterText(field.type, { value, literal: 'placeholder' }, 'compare');
    if (text === undefined) continue;
    const mapping = mappings.find(
      (one) =>
        one.field === name &&
        (one.op === '=' || one.op === 'in') &&
        !Object.hasOwn(parameters, one.param) &&
        parameterValue(one, [text]) !== undefined,
    );
    if (mapping !== undefined) parameters[mapping.param] = text;
  }
  return parameters;
}
