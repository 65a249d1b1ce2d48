/**
 * Fields proposed from sample JSON records, for discover: each property seen becomes a field of the
 * type its values share (records/infer-field-types.ts), nullable when a record has null or lacks
 * it. What cannot be told from the values is said in a note: a property that was only ever null,
 * values of several kinds.
 */
import type { FieldType } from '../../definitions/types.js';
import { kindOfValue, typeOfKinds, type ValueKind } from '../records/infer-field-types.js';

export interface InferredField {
  name: string;
  type: FieldType;
  nullable: boolean;
}

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The fields of `records` in the order their properties first appear, leaving out `skip` (a
 * property that is something else, such as a typed group). Properties whose names a definition
 * cannot take are left out too, with a note.
 */
export function inferFields(
  records: readonly Record<string, unknown>[],
  skip: ReadonlySet<string> = new Set(),
): { fields: InferredField[]; notes: string[] } {
  const seen = new Map<string, { kinds: Set<ValueKind>; nullable: boolean; present: number }>();
  for (const record of records) {
    for (const [name, value] of Object.entries(record)) {
      if (skip.has(name)) continue;
      let entry = seen.get(name);
      if (entry === undefined) seen.set(name, (entry = { kinds: new Set(), nullable: false, present: 0 }));
      entry.present += 1;
      if (value === null || value === undefined) entry.nullable = true;
      else entry.kinds.add(kindOfValue(value));
    }
  }
  const fields: InferredField[] = [];
  const notes: string[] = [];
  for (const [name, entry] of seen) {
    if (!FIELD_NAME.test(name)) {
      notes.push(`'${name}' is left out: a field name is letters, digits and '_', not starting with a digit`);
      continue;
    }
    const nullable = entry.nullable || entry.present < records.length;
    if (entry.kinds.size === 0) {
      fields.push({ name, type: 'String', nullable: true });
      notes.push(`${name}: only null was seen; String is a guess`);
      continue;
    }
    const { type, mixed } = typeOfKinds(entry.kinds);
    if (mixed) notes.push(`${name}: values of several kinds (${[...entry.kinds].sort().join(', ')}) were seen; ${type} is a guess`);
    fields.push({ name, type, nullable });
  }
  return { fields, notes };
}
