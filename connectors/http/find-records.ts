/**
 * The records a write's match names, as the API has them (the JSON, for merging group entries and
 * for PUT) and as records carry them: by the object's `get` when the match is exactly the key (a
 * 404 is none), else by the list, narrowed by the match's `=` parameters where declared and
 * searched in memory. A record matches when each match field has the value given, compared as
 * values of the field's type (7 and "7" for an Integer, case-sensitive text); a null match value
 * matches null. The search stops at `most` records: a write needs to know one from several.
 */
import type { RecordData } from '../connection.js';
import { checkFieldValue, sameFieldValue } from '../records/field-values.js';
import { fieldNamed } from '../records/object-model.js';
import { equalityParameters } from './filter-mapping.js';
import type { HttpObject } from './http-object.js';
import { getByKey, listAnswers, type ObjectScope } from './read.js';
import { recordReader } from './record-json.js';

export interface FoundRecord {
  /** The record as the API answered it. */
  raw: Record<string, unknown>;
  /** The record as records carry it. */
  record: RecordData;
}

/** A write's match values in canonical form; throws 'invalid-value' naming the field. */
export function checkedMatch(object: HttpObject, match: Readonly<RecordData>): RecordData {
  const checked: RecordData = {};
  for (const [name, raw] of Object.entries(match)) {
    checked[name] = checkFieldValue(fieldNamed(object, name).type, raw, { label: `${object.name}.${name}` });
  }
  return checked;
}

function matches(record: RecordData, match: Readonly<RecordData>): boolean {
  return Object.entries(match).every(([name, value]) => (value === null ? record[name] === null : sameFieldValue(record[name], value)));
}

function isKey(object: HttpObject, match: Readonly<RecordData>): boolean {
  const names = Object.keys(match);
  return names.length === object.key.length && object.key.every((name) => names.includes(name) && match[name] !== null);
}

export async function findRecords(
  scope: ObjectScope,
  match: Readonly<RecordData>,
  most: number,
  signal?: AbortSignal,
): Promise<FoundRecord[]> {
  const { object } = scope;
  const read = recordReader(object);
  if (object.get !== undefined && isKey(object, match)) {
    const raw = await getByKey(scope, match, signal);
    const record = raw === undefined ? undefined : read(raw);
    // An API that finds the key another way (ignoring case) has not found this record.
    return raw !== undefined && record !== undefined && matches(record, match) ? [{ raw, record }] : [];
  }
  const found: FoundRecord[] = [];
  const query = equalityParameters(object, object.filters, match);
  for await (const page of listAnswers(scope, query, { size: object.paging.pageSize, start: 0, want: Infinity }, signal)) {
    for (const raw of page) {
      const record = read(raw);
      if (!matches(record, match)) continue;
      found.push({ raw, record });
      if (found.length >= most) return found;
    }
  }
  return found;
}
