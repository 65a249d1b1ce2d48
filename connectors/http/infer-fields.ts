/**
 * Field types proposed from sample JSON records, for discover: each property seen becomes a field
 * of the type its values share — Integer (whole numbers), Number (any other number among them),
 * Boolean, Date (`YYYY-MM-DD` text), DateTime (ISO 8601 date-time text, or dates mixed with
 * date-times), Json (objects and arrays), else String — nullable when a record has null or lacks
 * it. What cannot be told from the values is said in a note: a property that was only ever null,
 * values of several kinds.
 */
import { matchIsoDate, isoDateProblem } from '../../definitions/expression/iso-dates.js';
import type { FieldType } from '../../definitions/types.js';

export interface InferredField {
  name: string;
  type: FieldType;
  nullable: boolean;
}

type Kind = 'integer' | 'number' | 'boolean' | 'date' | 'datetime' | 'string' | 'json';

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/;

function isDate(text: string): boolean {
  if (text.length !== 10) return false;
  const parts = matchIsoDate(text, 0, 'lenient');
  return parts !== null && parts.length === 10 && isoDateProblem(parts) === null;
}

function kindOf(value: unknown): Kind {
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') {
    if (isDate(value)) return 'date';
    if (DATE_TIME.test(value) && !Number.isNaN(Date.parse(value.replace(' ', 'T')))) return 'datetime';
    return 'string';
  }
  return 'json';
}

function typeOf(kinds: ReadonlySet<Kind>): { type: FieldType; mixed: boolean } {
  const only = (...allowed: Kind[]) => [...kinds].every((kind) => allowed.includes(kind));
  if (only('integer')) return { type: 'Integer', mixed: false };
  if (only('integer', 'number')) return { type: 'Number', mixed: false };
  if (only('boolean')) return { type: 'Boolean', mixed: false };
  if (only('date')) return { type: 'Date', mixed: false };
  if (only('date', 'datetime')) return { type: 'DateTime', mixed: false };
  if (only('json')) return { type: 'Json', mixed: false };
  if (only('string', 'date', 'datetime')) return { type: 'String', mixed: false };
  return { type: kinds.has('json') ? 'Json' : 'String', mixed: true };
}

/**
 * The fields of `records` in the order their properties first appear, leaving out `skip` (a
 * property that is something else, such as a typed group). Properties whose names a definition
 * cannot take are left out too, with a note.
 */
export function inferFields(
  records: readonly Record<string, unknown>[],
  skip: ReadonlySet<string> = new Set(),
): { fields: InferredField[]; notes: string[] } {
  const seen = new Map<string, { kinds: Set<Kind>; nullable: boolean; present: number }>();
  for (const record of records) {
    for (const [name, value] of Object.entries(record)) {
      if (skip.has(name)) continue;
      let entry = seen.get(name);
      if (entry === undefined) seen.set(name, (entry = { kinds: new Set(), nullable: false, present: 0 }));
      entry.present += 1;
      if (value === null || value === undefined) entry.nullable = true;
      else entry.kinds.add(kindOf(value));
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
    const { type, mixed } = typeOf(entry.kinds);
    if (mixed) notes.push(`${name}: values of several kinds (${[...entry.kinds].sort().join(', ')}) were seen; ${type} is a guess`);
    fields.push({ name, type, nullable });
  }
  return { fields, notes };
}
