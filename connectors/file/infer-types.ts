/**
 * Field types and keys guessed from a sample of rows, for `syncline discover`. The types are those
 * every connector's discover guesses (records/infer-field-types.ts): CSV cells are read for what
 * they spell, JSON values keep their own kinds. Empty and null values say nothing of the type;
 * they make the field nullable.
 */
import type { FieldType } from '../../definitions/types.js';
import { kindOfText, kindOfValue, typeOfKinds } from '../records/infer-field-types.js';

export interface InferredField {
  type: FieldType;
  nullable: boolean;
  /** Why the type is a default rather than a finding. */
  note?: string;
}

/** The type of a column from its sampled values: CSV cells (text or null), or JSON values (`typed`). */
export function inferField(values: readonly unknown[], typed: boolean): InferredField {
  const present = values.filter((value) => value !== null && value !== undefined && value !== '');
  const nullable = present.length < values.length;
  if (present.length === 0) return { type: 'String', nullable: true, note: 'no value in the sample, so String is assumed' };
  const kinds = new Set(present.map((value) => (typed ? kindOfValue(value) : kindOfText(value as string))));
  const { type, mixed } = typeOfKinds(kinds);
  if (!mixed) return { type, nullable };
  return { type, nullable, note: `values of several kinds (${[...kinds].sort().join(', ')}), so ${type} is assumed` };
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
