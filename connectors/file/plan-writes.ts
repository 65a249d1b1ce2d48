/**
 * What a batch of writes does to a file, decided in memory between the two passes of a rewrite
 * (write-records.ts): each write with exactly the meaning of Connection.write, in request order,
 * so a later write finds what an earlier one created or changed.
 *
 * The first pass streams the file and answers, for each write, which rows its lookups find — the
 * record its match (or key) names, and whether the key a create or key change would take is
 * taken — through one hash index per set of fields (`Lookups`), so a batch of 500 costs one
 * hash probe per row and field set, not 500 comparisons. A lookup keeps at most `batch size + 2`
 * rows: at most one row per earlier write can have changed since, so that many still tell none,
 * one and several apart. Only rows some lookup found are kept.
 *
 * `planWrites` then replays the batch: per write none found → create (the values and the match
 * values, a generated key for a single Integer key left out: the largest in the file plus one),
 * one → update (or skip under onMatch skip), several → refused as ambiguous. A failing write is
 * that write's ConnectorError and changes nothing, as a rolled-back record would.
 */
import type { RecordData, WriteResult } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { checkFieldValue } from '../records/field-values.js';
import { ambiguousMatch, newRecordValues, writeResult, type CheckedWrite } from '../records/write-checks.js';
import type { FileObject } from './file-object.js';
import type { GroupValues, RowLayout } from './row-layout.js';

/** Fields with the values a lookup wants, in canonical form. */
export interface Lookup {
  fields: readonly string[];
  values: readonly unknown[];
}

/** One write of the batch, checked (records/write-checks.ts) and ready to plan. */
export interface PreparedWrite {
  checked: CheckedWrite;
  groups: GroupValues;
  /** The record to find: the request's match, else the key when the values hold it. */
  find: Lookup | undefined;
  /** The key the record will have when the write sets or creates all of it. */
  key: Lookup | undefined;
}

/** A value as hashed for equality: canonical values of one type are equal exactly when their keys are. */
export function valueKey(value: unknown): string {
  if (value === null || value === undefined) return '\u0000';
  if (typeof value === 'string') return `s${value}`;
  if (typeof value === 'number' || typeof value === 'bigint') return `n${value}`;
  if (typeof value === 'boolean') return `b${value}`;
  return `j${JSON.stringify(value)}`;
}

function lookupKey(values: readonly unknown[]): string {
  return values.map(valueKey).join('\u0001');
}

/** The lookup of `values` by `fields`, each value checked as its field's type (an id "7" finds 7). */
export function lookupOf(object: FileObject, values: Readonly<RecordData>, fields: readonly string[]): Lookup {
  return {
    fields,
    values: fields.map((name) => checkFieldValue(object.fields.get(name)!.type, values[name], { label: `${object.name}.${name}` })),
  };
}

/** The rows each lookup of a batch finds in the first pass. */
export class Lookups {
  private readonly sets = new Map<string, { fields: readonly string[]; wanted: Map<string, number[]> }>();
  private readonly found: number[][] = [];
  private readonly cap: number;
  /** The largest value of a single Integer key seen, for generated keys. */
  largestKey = 0;

  constructor(
    lookups: ReadonlyArray<Lookup | undefined>,
    private readonly integerKey: string | undefined,
  ) {
    this.cap = lookups.length + 2;
    lookups.forEach((lookup, id) => {
      this.found.push([]);
      if (lookup === undefined) return;
      const signature = lookup.fields.join('\u0001');
      let set = this.sets.get(signature);
      if (set === undefined) this.sets.set(signature, (set = { fields: lookup.fields, wanted: new Map() }));
      const key = lookupKey(lookup.values);
      const ids = set.wanted.get(key);
      if (ids === undefined) set.wanted.set(key, [id]);
      else ids.push(id);
    });
  }

  /** Notes the lookups row `index` answers; true when one does (the caller keeps the row). */
  visit(index: number, valueOf: (field: string) => unknown): boolean {
    let kept = false;
    for (const { fields, wanted } of this.sets.values()) {
      const ids = wanted.get(lookupKey(fields.map(valueOf)));
      if (ids === undefined) continue;
      for (const id of ids) {
        const rows = this.found[id]!;
        if (rows.length < this.cap) rows.push(index);
      }
      kept = true;
    }
    if (this.integerKey !== undefined) {
      const value = valueOf(this.integerKey);
      if (typeof value === 'number' && value > this.largestKey) this.largestKey = value;
    }
    return kept;
  }

  rows(id: number): readonly number[] {
    return this.found[id] ?? [];
  }

  /** Whether the lookup found as many rows as it keeps (so more may match). */
  full(id: number): boolean {
    return this.rows(id).length >= this.cap;
  }
}

/** What the replay decided: each write's answer, the rows it changed, the rows it added. */
export interface WritePlan<R> {
  results: Array<WriteResult | ConnectorError>;
  changed: Map<number, R>;
  added: R[];
}

function keyTaken(object: FileObject): ConnectorError {
  return new ConnectorError('rejected', `${object.name}: another record has the same key (${object.key.join(', ')}); nothing was written`, {
    details: { object: object.name, reason: 'key-taken' },
  });
}

/**
 * Replays the batch over the rows the lookups found (`kept`, by index). Requests are `prepared`
 * at the same positions the lookups were made from: `finds` then `keys`.
 */
export function planWrites<R>(
  object: FileObject,
  layout: RowLayout<R>,
  prepared: ReadonlyArray<PreparedWrite | ConnectorError>,
  lookups: Lookups,
  kept: ReadonlyMap<number, R>,
  generatedKey: string | undefined,
): WritePlan<R> {
  const count = prepared.length;
  const changed = new Map<number, R>();
  const added: R[] = [];
  let largestKey = lookups.largestKey;
  const matches = (row: R, lookup: Lookup): boolean =>
    lookup.fields.every((field, at) => valueKey(layout.value(row, field)) === valueKey(lookup.values[at]));
  /** The rows the lookup finds now: found in the file and not changed since, or changed or added and matching now. */
  const findNow = (id: number, lookup: Lookup): Array<{ index?: number; row: R }> => {
    const now: Array<{ index?: number; row: R }> = [];
    for (const index of lookups.rows(id)) if (!changed.has(index)) now.push({ index, row: kept.get(index)! });
    for (const [index, row] of changed) if (matches(row, lookup)) now.push({ index, row });
    added.forEach((row, at) => {
      if (matches(row, lookup)) now.push({ index: -1 - at, row });
    });
    return now;
  };
  const keyOf = (row: R): RecordData => Object.fromEntries(object.key.map((name) => [name, layout.value(row, name)]));
  const results = prepared.map((write, position): WriteResult | ConnectorError => {
    if (write instanceof ConnectorError) return write;
    try {
      const found = write.find === undefined ? [] : findNow(position, write.find);
      if (found.length > 1 || (write.find !== undefined && lookups.full(position))) return ambiguousMatch(object, write.checked);
      const keyLookup = write.key;
      const keyIsTaken = (self: number | undefined): boolean =>
        keyLookup !== undefined && findNow(count + position, keyLookup).some((other) => other.index !== self);
      const target = found[0];
      if (target === undefined) {
        const values = newRecordValues(object, write.checked);
        if (generatedKey !== undefined && (values[generatedKey] === undefined || values[generatedKey] === null)) {
          largestKey += 1;
          values[generatedKey] = largestKey;
        }
        const missing = object.key.filter((name) => values[name] === undefined || values[name] === null);
        if (missing.length > 0) {
          return new ConnectorError('rejected', `${object.name}: a new record needs its key ${missing.join(', ')}; nothing was written`, {
            details: { object: object.name, missing },
          });
        }
        if (keyIsTaken(undefined)) return keyTaken(object);
        const row = layout.apply(undefined, values, write.groups);
        added.push(row);
        if (generatedKey !== undefined) {
          const value = layout.value(row, generatedKey);
          if (typeof value === 'number' && value > largestKey) largestKey = value;
        }
        return writeResult(object, 'created', keyOf(row));
      }
      if (write.checked.request.onMatch === 'skip') return writeResult(object, 'skipped', keyOf(target.row));
      if (keyIsTaken(target.index)) return keyTaken(object);
      const row = layout.apply(target.row, write.checked.settable, write.groups);
      if (target.index !== undefined && target.index < 0) added[-1 - target.index] = row;
      else changed.set(target.index!, row);
      return writeResult(object, 'updated', keyOf(row));
    } catch (error) {
      if (error instanceof ConnectorError) return error;
      throw error;
    }
  });
  return { results, changed, added };
}
