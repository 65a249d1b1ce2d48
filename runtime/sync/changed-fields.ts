/**
 * What an update would change in a target record: the values a write sets compared with the
 * record's own, field by field, as the target field's type compares them (records/field-values.ts).
 * A dry run lists the changes; a run may one day leave out writes that change nothing.
 *
 * Both sides are brought to the canonical form records carry before they are compared, so the
 * spellings drivers and mappings differ in are no change: 7 and '7' for an Integer, 12.5 and
 * PostgreSQL's '12.50' for a Number, true and 1 for a Boolean, a Date object and its ISO text,
 * '2024-01-05T11:00:00+01:00' and '2024-01-05T10:00:00.000Z' for a DateTime, Json objects with
 * their properties in any order. Text is compared exactly (case and trailing blanks count, as a
 * write stores them).
 *
 * - A field the write does not name (or names with `undefined`) is left as it is: no change.
 * - null written over a field the record lacks or holds null in is no change; over a value it is.
 * - Read-only fields are not compared: a write only uses them to identify the record (or is
 *   refused), and fields the object does not declare are refused by the write's checks.
 * - A typed group's entry is compared field by field (`addresses[main].city`); an entry of a type
 *   the record lacks is created, so each of its fields is a change from `undefined` (no entry).
 *
 * The object's fields are looked up once per object, and `any` stops at the first difference.
 */
import type { FieldDescription, ObjectDescription, RecordData, WriteRequest } from '../../connectors/connection.js';
import { checkFieldValue, decodeValue, sameFieldValue } from '../../connectors/records/field-values.js';
import type { FieldType } from '../../definitions/types.js';

export interface FieldChange {
  /** `Email`, or `addresses[main].city` for a field of a typed group's entry. */
  field: string;
  /** The record's value in canonical form: null when it has none; undefined when its group entry does not exist. */
  old: unknown;
  /** The value the write sets, in canonical form (as given when it does not fit the field's type). */
  new: unknown;
}

/** The part of a write that sets values. */
export type WrittenValues = Pick<WriteRequest, 'values' | 'groups'>;

interface Comparable {
  type: FieldType;
  label: string;
}

/** The value as a write of `type` stores it; a value that does not fit stays as given (the write's checks refuse it). */
export function writtenValue(type: FieldType, raw: unknown): unknown {
  try {
    return checkFieldValue(type, raw, { label: '' });
  } catch {
    return raw;
  }
}

function writable(fields: readonly FieldDescription[], label: (name: string) => string): Map<string, Comparable> {
  return new Map(fields.filter((field) => !field.readOnly).map((field) => [field.name, { type: field.type, label: label(field.name) }]));
}

export class ChangedFields {
  private readonly fields: ReadonlyMap<string, Comparable>;
  private readonly groups: ReadonlyMap<string, ReadonlyMap<string, ReadonlyMap<string, Comparable>>>;

  constructor(description: ObjectDescription) {
    this.fields = writable(description.fields, (name) => name);
    this.groups = new Map(
      description.groups.map((group) => [
        group.name,
        new Map(group.types.map((type) => [type, writable(group.fields, (name) => `${group.name}[${type}].${name}`)])),
      ]),
    );
  }

  /** Every field the write changes, in the order the write gives them (values, then group entries). */
  list(target: Readonly<RecordData>, write: WrittenValues): FieldChange[] {
    const changes: FieldChange[] = [];
    this.compare(target, write, (change) => {
      changes.push(change);
      return true;
    });
    return changes;
  }

  /** Whether the write changes anything; stops at the first field it changes. */
  any(target: Readonly<RecordData>, write: WrittenValues): boolean {
    let changed = false;
    this.compare(target, write, () => {
      changed = true;
      return false;
    });
    return changed;
  }

  /** Calls `found` for each change while it answers true. */
  private compare(target: Readonly<RecordData>, write: WrittenValues, found: (change: FieldChange) => boolean): void {
    if (!compareEntry(this.fields, target, write.values, found)) return;
    for (const [name, entries] of Object.entries(write.groups ?? {})) {
      const types = this.groups.get(name);
      if (types === undefined) continue;
      const existing = target[name];
      for (const [type, entry] of Object.entries(entries)) {
        const fields = types.get(type);
        if (fields === undefined) continue;
        const current = isRecord(existing) ? existing[type] : undefined;
        // Not an object of field values: the write's checks refuse it; there is nothing to compare.
        if (!isRecord(entry)) {
          if (!found({ field: `${name}[${type}]`, old: current, new: entry })) return;
        } else if (!isRecord(current)) {
          if (!newEntry(fields, `${name}[${type}]`, entry, found)) return;
        } else if (!compareEntry(fields, current, entry, found)) return;
      }
    }
  }
}

function isRecord(value: unknown): value is RecordData {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The changes of `values` over `current`; false when `found` asked to stop. */
function compareEntry(
  fields: ReadonlyMap<string, Comparable>,
  current: Readonly<RecordData>,
  values: Readonly<RecordData>,
  found: (change: FieldChange) => boolean,
): boolean {
  for (const name of Object.keys(values)) {
    const raw = values[name];
    const field = fields.get(name);
    if (raw === undefined || field === undefined) continue;
    const written = writtenValue(field.type, raw);
    const old = decodeValue(field.type, current[name]);
    const same = written === null ? old === null : sameFieldValue(old, written);
    if (!same && !found({ field: field.label, old, new: written })) return false;
  }
  return true;
}

/** A group entry the record lacks: each field written is a change from no entry, and an empty entry still is one. */
function newEntry(
  fields: ReadonlyMap<string, Comparable>,
  label: string,
  entry: Readonly<RecordData>,
  found: (change: FieldChange) => boolean,
): boolean {
  let named = false;
  for (const name of Object.keys(entry)) {
    const field = fields.get(name);
    if (entry[name] === undefined || field === undefined) continue;
    named = true;
    if (!found({ field: field.label, old: undefined, new: writtenValue(field.type, entry[name]) })) return false;
  }
  return named || found({ field: label, old: undefined, new: {} });
}
