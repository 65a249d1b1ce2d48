/**
 * How the rows of a file carry records, for each format: a CSV row is an array of cells laid out
 * by the file's columns (its header line, or the object's `columns`), with group fields in columns
 * named `group.type.field`; a JSON or NDJSON row is an object holding the record as records carry
 * it, groups nested (`{ "addresses": { "main": { "city": … } } }`).
 *
 * A layout reads a row as a record (every declared field, null when absent; each group entry whose
 * type is present) and applies a write to a row, keeping whatever the row holds that the object
 * does not declare — columns and properties other tools put there are never lost on a rewrite.
 * A CSV write of a field whose column the file lacks adds the column at the end.
 */
import type { RecordData } from '../connection.js';
import type { Decoder } from '../records/field-values.js';
import { decoderFor } from '../records/field-values.js';
import type { FieldType } from '../../definitions/types.js';
import { JsonNumberText, jsonValues, stringifyJson, unmarked } from '../records/json-number-text.js';
import { cellDecoder, cellOf } from './cell-values.js';
import { nameInFile, type FileObject } from './file-object.js';

export type Cells = Array<string | null>;
export type JsonRow = Record<string, unknown>;
export type GroupValues = Readonly<Record<string, Readonly<Record<string, Readonly<RecordData>>>>>;

export interface RowLayout<R> {
  /** The record a row carries. */
  record(row: R): RecordData;
  /** One field of the object, as the record carries it. */
  value(row: R, field: string): unknown;
  /** A row with `values` (checked, canonical) set and the group entries merged by type; a new one when `row` is undefined. */
  apply(row: R | undefined, values: Readonly<RecordData>, groups: GroupValues): R;
}

interface Slot {
  name: string;
  type: FieldType;
  column: string;
  index: number;
  decode: Decoder;
}

interface GroupSlots {
  name: string;
  types: Array<{ type: string; slots: Slot[] }>;
}

export class CsvLayout implements RowLayout<Cells> {
  /** The file's columns; a write may add some at the end. */
  readonly columns: string[];
  private readonly index = new Map<string, number>();
  private readonly fields: Slot[];
  private readonly fieldByName: Map<string, Slot>;
  private readonly groups: GroupSlots[];

  constructor(object: FileObject, columns: readonly string[]) {
    this.columns = [...columns];
    // The first of duplicate columns is the one read and written; the file keeps the others as they are.
    this.columns.forEach((column, at) => {
      if (!this.index.has(column)) this.index.set(column, at);
    });
    const slot = (name: string, type: FieldType, column: string): Slot => ({
      name,
      type,
      column,
      index: this.index.get(column) ?? -1,
      decode: cellDecoder(type),
    });
    this.fields = [...object.fields.values()].map((field) => slot(field.name, field.type, nameInFile(object, field.name)));
    this.fieldByName = new Map(this.fields.map((field) => [field.name, field]));
    this.groups = [...object.groups.values()].map((group) => ({
      name: group.name,
      types: group.types.map((type) => ({
        type,
        slots: [...group.fields.values()].map((field) => slot(field.name, field.type, `${group.name}.${type}.${field.name}`)),
      })),
    }));
  }

  /** Whether the file has a column for `field`. */
  hasColumn(field: string): boolean {
    return (this.fieldByName.get(field)?.index ?? -1) >= 0;
  }

  record(cells: Cells): RecordData {
    const record: RecordData = {};
    for (const slot of this.fields) record[slot.name] = slot.index < 0 ? null : slot.decode(cells[slot.index] ?? null);
    for (const group of this.groups) {
      const entries: Record<string, RecordData> = {};
      for (const { type, slots } of group.types) {
        // An entry is there when any of its cells holds something: a CSV row cannot tell an entry of
        // nulls only from none.
        let present = false;
        const entry: RecordData = {};
        for (const slot of slots) {
          const cell = slot.index < 0 ? null : (cells[slot.index] ?? null);
          if (cell !== null) present = true;
          entry[slot.name] = slot.decode(cell);
        }
        if (present) entries[type] = entry;
      }
      record[group.name] = entries;
    }
    return record;
  }

  value(cells: Cells, field: string): unknown {
    const slot = this.fieldByName.get(field);
    return slot === undefined || slot.index < 0 ? null : slot.decode(cells[slot.index] ?? null);
  }

  private indexFor(slot: Slot): number {
    if (slot.index < 0) {
      const existing = this.index.get(slot.column);
      if (existing !== undefined) slot.index = existing;
      else {
        this.columns.push(slot.column);
        slot.index = this.columns.length - 1;
        this.index.set(slot.column, slot.index);
      }
    }
    return slot.index;
  }

  apply(row: Cells | undefined, values: Readonly<RecordData>, groups: GroupValues): Cells {
    const cells = row === undefined ? [] : [...row];
    for (const [name, value] of Object.entries(values)) {
      const slot = this.fieldByName.get(name);
      if (slot !== undefined) cells[this.indexFor(slot)] = cellOf(slot.type, value);
    }
    for (const [groupName, entries] of Object.entries(groups)) {
      const group = this.groups.find((candidate) => candidate.name === groupName);
      for (const [type, entry] of Object.entries(entries)) {
        const slots = group?.types.find((candidate) => candidate.type === type)?.slots ?? [];
        for (const [name, value] of Object.entries(entry)) {
          const slot = slots.find((candidate) => candidate.name === name);
          if (slot !== undefined) cells[this.indexFor(slot)] = cellOf(slot.type, value);
        }
      }
    }
    return this.padded(cells);
  }

  /** The row with a cell for every column (null where it had none), as it is written. */
  padded(cells: Cells): Cells {
    if (cells.length === this.columns.length) return cells;
    const out = cells.slice(0, Math.max(cells.length, this.columns.length));
    for (let at = 0; at < this.columns.length; at++) if (out[at] === undefined) out[at] = null;
    return out;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumberText);
}

interface JsonField {
  name: string;
  property: string;
  type: FieldType;
  decode: Decoder;
}

export class JsonLayout implements RowLayout<JsonRow> {
  private readonly fields: JsonField[];
  private readonly fieldByName: Map<string, JsonField>;
  private readonly groups: Array<{
    name: string;
    types: readonly string[];
    fields: Array<{ name: string; type: FieldType; decode: Decoder }>;
  }>;

  constructor(object: FileObject) {
    this.fields = [...object.fields.values()].map((field) => ({
      name: field.name,
      property: nameInFile(object, field.name),
      type: field.type,
      decode: decoderFor(field.type),
    }));
    this.fieldByName = new Map(this.fields.map((field) => [field.name, field]));
    this.groups = [...object.groups.values()].map((group) => ({
      name: group.name,
      types: group.types,
      fields: [...group.fields.values()].map((field) => ({ name: field.name, type: field.type, decode: decoderFor(field.type) })),
    }));
  }

  /**
   * The JSON text of a row written: the values a write set, and the numbers past 2^53 the file held
   * (JsonNumberText, json-rows.ts), as bare numbers with all their digits; the rest as it was.
   */
  text(row: JsonRow): string {
    return stringifyJson(row);
  }

  record(row: JsonRow): RecordData {
    const record: RecordData = {};
    for (const field of this.fields) record[field.name] = field.decode(unmarked(row[field.property]));
    for (const group of this.groups) {
      const stored = row[group.name];
      const entries: Record<string, RecordData> = {};
      for (const type of group.types) {
        const entry = isPlainObject(stored) ? stored[type] : undefined;
        if (!isPlainObject(entry)) continue;
        const values: RecordData = {};
        for (const field of group.fields) values[field.name] = field.decode(unmarked(entry[field.name]));
        entries[type] = values;
      }
      record[group.name] = entries;
    }
    return record;
  }

  value(row: JsonRow, field: string): unknown {
    const found = this.fieldByName.get(field);
    return found === undefined ? null : found.decode(unmarked(row[found.property]));
  }

  apply(row: JsonRow | undefined, values: Readonly<RecordData>, groups: GroupValues): JsonRow {
    // A new record lists every declared field, null when it has no value, so the file reads plainly.
    const out: JsonRow = row === undefined ? Object.fromEntries(this.fields.map((field) => [field.property, null])) : { ...row };
    for (const [name, value] of Object.entries(jsonValues(values, (name) => this.fieldByName.get(name)?.type))) {
      out[this.fieldByName.get(name)?.property ?? name] = value ?? null;
    }
    for (const [groupName, entries] of Object.entries(groups)) {
      const stored = isPlainObject(out[groupName]) ? { ...(out[groupName] as Record<string, unknown>) } : {};
      const fields = this.groups.find((group) => group.name === groupName)?.fields ?? [];
      const typeOf = (name: string) => fields.find((field) => field.name === name)?.type;
      for (const [type, entry] of Object.entries(entries)) {
        stored[type] = { ...(isPlainObject(stored[type]) ? stored[type] : {}), ...jsonValues(entry, typeOf) };
      }
      out[groupName] = stored;
    }
    return out;
  }
}
