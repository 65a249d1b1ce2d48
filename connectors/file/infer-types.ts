/**
 * Field types and keys guessed from a sample of rows, for `syncline discover`. A guess is a
 * starting point the engineer reviews, so it errs towards String: a column is a number only when
 * every sampled value is one (and none has a leading zero, which a number would lose: a zip code
 * stays text), a date only when every value is a valid ISO date, and so on. Empty and null values
 * say nothing of the type; they make the field nullable.
 *
 * CSV cells are text and are read for what they spell; JSON values are typed already, and only
 * their strings are looked at for dates.
 */
import { isoDateProblem, matchIsoDate, toEpochMillis } from '../../definitions/expression/iso-dates.js';
import type { FieldType } from '../../definitions/types.js';

export interface InferredField {
  type: FieldType;
  nullable: boolean;
  /** Why the type is a default rather than a finding. */
  note?: string;
}

const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;

function isDate(text: string): boolean {
  if (text.length !== 10) return false;
  const parts = matchIsoDate(text, 0, 'lenient');
  return parts !== null && isoDateProblem(parts) === null;
}

function isDateTime(text: string): boolean {
  return DATE_TIME.test(text) && toEpochMillis(text) !== null;
}

function isJsonText(text: string): boolean {
  if (!/^\s*[[{]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The type every text of `texts` spells, String when they agree on none. */
function textType(texts: readonly string[]): FieldType {
  const all = (test: (text: string) => boolean) => texts.every(test);
  if (all((text) => INTEGER.test(text) && Number.isSafeInteger(Number(text)))) return 'Integer';
  if (all((text) => NUMBER.test(text) && Number.isFinite(Number(text)))) return 'Number';
  if (all((text) => /^(true|false)$/i.test(text))) return 'Boolean';
  if (all(isDate)) return 'Date';
  if (all(isDateTime)) return 'DateTime';
  if (all(isJsonText)) return 'Json';
  return 'String';
}

/** The type of a column from its sampled values: CSV cells (text or null), or JSON values (`typed`). */
export function inferField(values: readonly unknown[], typed: boolean): InferredField {
  const present = values.filter((value) => value !== null && value !== undefined && value !== '');
  const nullable = present.length < values.length;
  if (present.length === 0) return { type: 'String', nullable: true, note: 'no value in the sample, so String is assumed' };
  if (!typed) return { type: textType(present as string[]), nullable };
  const kinds = new Set(present.map((value) => (Array.isArray(value) ? 'object' : typeof value)));
  if (kinds.size > 1) return { type: 'String', nullable, note: `values of several kinds (${[...kinds].join(', ')}), so String is assumed` };
  const [kind] = kinds;
  if (kind === 'number') return { type: present.every((value) => Number.isSafeInteger(value)) ? 'Integer' : 'Number', nullable };
  if (kind === 'boolean') return { type: 'Boolean', nullable };
  if (kind === 'object') return { type: 'Json', nullable };
  const texts = present as string[];
  return { type: texts.every(isDate) ? 'Date' : texts.every(isDateTime) ? 'DateTime' : 'String', nullable };
}

const KEY_SUFFIX = /(?:[_\-\s](?:id|key|number|code|no|nr)|[a-z0-9](?:Id|ID|Key|Number|Code|No|Nr))$/;

/**
 * The key a definition most likely wants: a field named id (any case); else the first whose name
 * ends like a key (CustomerId, order_no, AccountNumber) and whose sampled values are all there and
 * all different; else none.
 */
export function guessKey(fields: readonly string[], sample: (field: string) => readonly unknown[]): string[] {
  const id = fields.find((field) => field.toLowerCase() === 'id');
  if (id !== undefined) return [id];
  for (const field of fields) {
    if (!KEY_SUFFIX.test(field)) continue;
    const values = sample(field);
    const present = values.filter((value) => value !== null && value !== undefined && value !== '');
    if (present.length > 0 && present.length === values.length && new Set(present.map(String)).size === present.length) return [field];
  }
  return [];
}
