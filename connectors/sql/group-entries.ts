/**
 * Typed object groups on read: for one page of records, each group's entries are loaded with ONE
 * query (`WHERE foreign_key IN (<the page's keys>) AND type IN (<declared types>)`) and attached as
 * `record[group][type] = { field: value, … }`. Every record gets each group as an object, empty
 * when it has no entries; a type absent for a record is absent. Rows of undeclared types are not
 * read, and of two rows with the same (foreign key, type) the first one returned wins.
 */
import type { RecordData } from '../connection.js';
import { groupParentKey, type SqlGroup } from './object-model.js';
import type { ObjectScope } from './record-query.js';
import { decodeValue } from './value-codec.js';

const FOREIGN_KEY = '__syncline_fk';
const TYPE = '__syncline_type';

/** Foreign key values of different drivers (numbers, bigint text, strings) as one map key. */
export function keyString(raw: unknown): string {
  if (raw instanceof Date) return raw.toISOString();
  if (typeof raw === 'bigint' || typeof raw === 'number') return String(raw);
  return typeof raw === 'string' ? raw : JSON.stringify(raw);
}

async function loadGroup(scope: ObjectScope, group: SqlGroup, keys: readonly unknown[]): Promise<Array<Record<string, unknown>>> {
  const columns: Record<string, string> = { [FOREIGN_KEY]: `g.${group.foreignKey}`, [TYPE]: `g.${group.typeField}` };
  for (const name of group.fields.keys()) columns[name] = `g.${name}`;
  return scope.knex
    .from({ g: group.table })
    .select(columns)
    .whereIn(`g.${group.foreignKey}`, keys as readonly string[])
    .whereIn(`g.${group.typeField}`, group.types as string[]);
}

/** Attaches the group entries of `records` (one page) in place. */
export async function attachGroups(scope: ObjectScope, records: RecordData[]): Promise<void> {
  const { object } = scope;
  if (object.groups.size === 0 || records.length === 0) return;
  const parentKey = groupParentKey(object);
  const byKey = new Map<string, RecordData>();
  for (const record of records) {
    for (const group of object.groups.values()) record[group.name] = {};
    const key = record[parentKey];
    if (key !== null && key !== undefined) byKey.set(keyString(key), record);
  }
  const keys = records.map((record) => record[parentKey]).filter((key) => key !== null && key !== undefined);
  if (keys.length === 0) return;
  for (const group of object.groups.values()) {
    for (const row of await loadGroup(scope, group, keys)) {
      const record = byKey.get(keyString(row[FOREIGN_KEY]));
      const type = String(row[TYPE]);
      const entries = record?.[group.name] as Record<string, RecordData> | undefined;
      if (entries === undefined || Object.hasOwn(entries, type)) continue;
      const entry: RecordData = {};
      for (const field of group.fields.values()) entry[field.name] = decodeValue(field.type, row[field.name]);
      entries[type] = entry;
    }
  }
}
