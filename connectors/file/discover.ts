/**
 * `syncline discover` for a file System: the CSV, JSON and NDJSON files of its directory as object
 * definitions. Files whose names differ only in their numbers (orders-2024-01.csv,
 * orders-2024-02.csv) are one object with a glob (orders-*-*.csv), sampled from the first.
 *
 * Fields come from the CSV header or the keys of the sampled JSON records, in file order, typed
 * from up to SAMPLE_ROWS rows (infer-types.ts). A name that cannot be a field name ("Customer ID")
 * becomes one (Customer_ID) with a columnNames entry; `group.type.field` columns and nested
 * objects of objects look like typed groups and are named in a note rather than guessed at. A CSV
 * whose header splits better at ';', a tab or '|' than at the connection's delimiter gets that
 * delimiter.
 */
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DiscoveredObject } from '../connection.js';
import { READ_FLAGS, confinedFile } from './confinement.js';
import { ioError, type Place } from './file-errors.js';
import type { FileEncoding } from './encodings.js';
import { fileOptions, formatOfPath, type FileFormat, type FileObject } from './file-object.js';
import { comparePaths } from './find-files.js';
import { guessKey, inferField } from './infer-types.js';
import { openRows } from './open-rows.js';
import type { Cells, JsonRow } from './row-layout.js';

const SAMPLE_ROWS = 1000;
/** Files looked at, at most: discover is for a directory a person could read through. */
const MAX_FILES = 1000;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface DiscoverScope {
  systemId: string;
  directory: string;
  connection: Readonly<Record<string, unknown>>;
  maxJsonBytes: number;
  /** Folders the System's objects archive into: their files were read already. */
  archives: readonly string[];
}

/** The files of known formats under the directory (hidden entries and archives passed over), sorted. */
async function candidateFiles(scope: DiscoverScope): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries = await readdir(join(scope.directory, relative), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (found.length >= MAX_FILES || entry.name.startsWith('.')) continue;
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (scope.archives.includes(path)) continue;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && formatOfPath(entry.name) !== undefined) found.push(path);
    }
  };
  await walk('');
  return found.sort(comparePaths);
}

/** Files grouped by their names with numbers made wildcards: a group of several is one glob. */
export function groupFiles(files: readonly string[]): Array<{ path: string; files: string[] }> {
  const groups = new Map<string, string[]>();
  for (const file of files) {
    const pattern = file.replace(/[0-9]+/g, '*');
    groups.set(pattern, [...(groups.get(pattern) ?? []), file]);
  }
  return [...groups.entries()].map(([pattern, members]) => ({ path: members.length > 1 ? pattern : members[0]!, files: members }));
}

/** An object name from a path: its last part without extension and wildcards. */
function nameOf(path: string): string {
  const last = path.slice(path.lastIndexOf('/') + 1);
  const dot = last.lastIndexOf('.');
  const bare = dot > 0 ? last.slice(0, dot) : last;
  return (
    bare
      .replace(/\*/g, '')
      .replace(/[-_. ]+$/g, '')
      .replace(/^[-_. ]+/g, '') || 'records'
  );
}

/** The delimiter the first line splits into most cells at, preferring the given one. */
async function guessDelimiter(path: string, given: string, encoding: FileEncoding): Promise<string> {
  const handle = await open(path, READ_FLAGS);
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const line = buffer.subarray(0, bytesRead).toString(encoding).split(/\r?\n/)[0] ?? '';
    const outside = line.replace(/"[^"]*"/g, '');
    const count = (delimiter: string) => outside.split(delimiter).length - 1;
    if (count(given) > 0) return given;
    const best = [',', ';', '\t', '|'].map((delimiter) => ({ delimiter, cells: count(delimiter) })).sort((a, b) => b.cells - a.cells)[0]!;
    return best.cells > 0 ? best.delimiter : given;
  } finally {
    await handle.close();
  }
}

function sampleObject(scope: DiscoverScope, path: string, format: FileFormat, delimiter?: string): FileObject {
  const definition = { key: [], fields: {}, path, format, ...(delimiter === undefined ? {} : { delimiter }) };
  return {
    name: nameOf(path),
    systemId: scope.systemId,
    key: [],
    fields: new Map(),
    groups: new Map(),
    readOnly: true,
    file: fileOptions(scope.connection, definition),
  };
}

interface Sample {
  names: string[];
  values: (name: string) => unknown[];
  typed: boolean;
}

async function sampleRows(scope: DiscoverScope, object: FileObject, relative: string): Promise<Sample> {
  const place: Place = { systemId: scope.systemId, object: object.name };
  const file = await confinedFile(scope.directory, relative, place);
  const opened = await openRows(file, object, { maxJsonBytes: scope.maxJsonBytes, batchSize: SAMPLE_ROWS }, place);
  try {
    const first = await opened.batches.next();
    const rows = first.done ? [] : first.value;
    if (opened.format === 'csv') {
      const cells = rows as Cells[];
      const names = opened.layout.columns;
      return { names, values: (name) => cells.map((row) => row[names.indexOf(name)] ?? null), typed: false };
    }
    const records = rows as JsonRow[];
    const names = [...new Set(records.flatMap((record) => Object.keys(record)))];
    return { names, values: (name) => records.map((record) => record[name]), typed: true };
  } finally {
    await opened.close();
  }
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Values that look like typed group entries: objects whose values are all objects (or null). */
function groupLike(values: readonly unknown[]): boolean {
  const present = values.filter((value) => value !== null && value !== undefined);
  return (
    present.length > 0 &&
    present.every((value) => isPlain(value) && Object.values(value).every((entry) => entry === null || isPlain(entry)))
  );
}

/** The object of a group of files; undefined when its first file names no field (it is empty). */
async function discoverGroup(scope: DiscoverScope, group: { path: string; files: string[] }): Promise<DiscoveredObject | undefined> {
  const format = formatOfPath(group.path)!;
  const first = group.files[0]!;
  const defaults = fileOptions(scope.connection, { key: [], fields: {}, path: first });
  const given = defaults.csv.delimiter;
  // Confined before a byte is read, as every file the connector opens (a link out of the directory is refused).
  const confined = format === 'csv' ? await confinedFile(scope.directory, first, { systemId: scope.systemId, file: first }) : undefined;
  const delimiter = confined === undefined ? given : await guessDelimiter(confined.path, given, defaults.encoding);
  const object = sampleObject(scope, first, format, delimiter === given ? undefined : delimiter);
  const sample = await sampleRows(scope, object, first);
  if (sample.names.length === 0) return undefined;
  const notes: string[] = [];
  if (group.files.length > 1) notes.push(`path matches ${group.files.length} files; the fields are read from the first, ${first}`);
  const grouped = sample.names.filter((name) => (sample.typed ? groupLike(sample.values(name)) : /^[^.]+\.[^.]+\.[^.]+$/.test(name)));
  if (grouped.length > 0) {
    const shown = grouped.length > 4 ? `${grouped.slice(0, 4).join(', ')}, …` : grouped.join(', ');
    notes.push(`${shown} look like typed group ${sample.typed ? 'entries' : 'columns'} (group.type.field): declare them under groups`);
  }
  const fields: DiscoveredObject['fields'] = [];
  const columnNames: Record<string, string> = {};
  const taken = new Set<string>();
  for (const name of sample.names) {
    if (grouped.includes(name)) continue;
    let field = FIELD_NAME.test(name) ? name : name.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^(?=[0-9])/, '_') || 'field';
    while (taken.has(field)) field = `${field}_`;
    taken.add(field);
    if (field !== name) columnNames[field] = name;
    const inferred = inferField(sample.values(name), sample.typed);
    if (inferred.note !== undefined) notes.push(`${field}: ${inferred.note}`);
    fields.push({ name: field, type: inferred.type, nullable: inferred.nullable });
  }
  const fileNameOf = (field: string) => columnNames[field] ?? field;
  const key = guessKey(
    fields.map((field) => field.name),
    (field) => sample.values(fileNameOf(field)),
  );
  const options: Record<string, unknown> = { path: group.path, format };
  if (delimiter !== given) options.delimiter = delimiter;
  if (Object.keys(columnNames).length > 0) options.columnNames = columnNames;
  return { name: nameOf(group.path), options, fields, key, ...(notes.length > 0 ? { notes } : {}) };
}

export async function discoverFiles(scope: DiscoverScope): Promise<DiscoveredObject[]> {
  const place: Place = { systemId: scope.systemId };
  let files: string[];
  try {
    files = await candidateFiles(scope);
  } catch (error) {
    throw ioError(place, 'listing the directory', error);
  }
  const objects: DiscoveredObject[] = [];
  for (const group of groupFiles(files)) {
    const object = await discoverGroup(scope, group);
    if (object !== undefined) objects.push(object);
  }
  return objects;
}
