/**
 * The `file` connector's objects: the shared record model (records/object-model.ts) with each
 * object's file options resolved once — its path or glob, its format, and the format options it
 * sets or takes from the connection — and the connection's own settings (directory, JSON size
 * cap, lock wait). Definitions reach here schema-checked and checked by check-system.ts; values a
 * definition built in code leaves out take the defaults of spec.ts.
 */
import picomatch from 'picomatch';
import { parseDuration } from '../../definitions/duration.js';
import { parseSize } from '../../definitions/size.js';
import type { ObjectDefinition, SystemDefinition } from '../../definitions/types.js';
import { buildObjects, type RecordGroup, type RecordObject } from '../records/object-model.js';
import { encodingNamed, type FileEncoding } from './encodings.js';

/**
 * The defaults of the connection settings: the schema's (spec.ts), and what a definition built in
 * code without the schema's defaults gets.
 */
export const connectionDefaults = Object.freeze({
  encoding: 'utf8',
  delimiter: ',',
  quote: '"',
  bom: false,
  lineEnding: 'lf',
  maxJsonSize: '64mib',
  lockWait: '30s',
});

export type FileFormat = 'csv' | 'json' | 'ndjson';

export interface CsvOptions {
  delimiter: string;
  quote: string;
  /** The first line names the columns. */
  header: boolean;
  /** The columns of a file without a header line. */
  columns: readonly string[] | undefined;
}

export interface FileOptions {
  /** The path or glob, relative to the directory, with '/' separators. */
  path: string;
  /** The path is a glob: reads only, files in path order. */
  isGlob: boolean;
  format: FileFormat;
  encoding: FileEncoding;
  /** New files start with a byte order mark. */
  bom: boolean;
  lineEnding: '\n' | '\r\n';
  csv: CsvOptions;
  /** Field → its name in the file, for fields named otherwise there. */
  columnNames: ReadonlyMap<string, string>;
  /** Where a sync's completely read files go, relative to the directory. */
  archiveTo: string | undefined;
}

export type FileObject = RecordObject<RecordGroup> & { file: FileOptions };

/** The connection's own settings. */
export interface FileSettings {
  /** As written: relative to the definitions directory, or absolute. */
  directory: string;
  maxJsonBytes: number;
  lockWaitMs: number;
}

const EXTENSIONS: ReadonlyArray<[string, FileFormat]> = [
  ['.csv', 'csv'],
  ['.tsv', 'csv'],
  ['.json', 'json'],
  ['.ndjson', 'ndjson'],
  ['.jsonl', 'ndjson'],
];

/** The format a path's extension names, if any (case-insensitive). */
export function formatOfPath(path: string): FileFormat | undefined {
  const lower = path.toLowerCase();
  return EXTENSIONS.find(([extension]) => lower.endsWith(extension))?.[1];
}

export function isGlobPath(path: string): boolean {
  return picomatch.scan(path).isGlob;
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

export function fileSettings(system: SystemDefinition): FileSettings {
  const connection = system.connection;
  const size = connection.maxJsonSize;
  const wait = connection.lockWait;
  return {
    directory: text(connection.directory, '.'),
    maxJsonBytes: parseSize(typeof size === 'number' || typeof size === 'string' ? size : connectionDefaults.maxJsonSize)!,
    lockWaitMs: parseDuration(text(wait, connectionDefaults.lockWait)) ?? 30_000,
  };
}

/** An object's file options: its own, else the connection's, else the defaults. */
export function fileOptions(connection: Readonly<Record<string, unknown>>, definition: ObjectDefinition): FileOptions {
  const option = (name: 'encoding' | 'delimiter' | 'quote' | 'lineEnding'): string =>
    text(definition[name], text(connection[name], connectionDefaults[name]));
  // './a.csv' and 'a//b.csv' name what 'a.csv' and 'a/b.csv' do; globs match normalised paths.
  const path = text(definition.path, '')
    .split('/')
    .filter((segment) => segment !== '.' && segment !== '')
    .join('/');
  const format = (definition.format as FileFormat | undefined) ?? formatOfPath(path) ?? 'csv';
  const columns = Array.isArray(definition.columns) ? (definition.columns as string[]) : undefined;
  const tabSeparated = path.toLowerCase().endsWith('.tsv') && definition.delimiter === undefined;
  const archive = definition.archive as { moveTo?: unknown } | undefined;
  return {
    path,
    isGlob: isGlobPath(path),
    format,
    encoding: encodingNamed(option('encoding')),
    bom:
      typeof definition.bom === 'boolean' ? definition.bom : typeof connection.bom === 'boolean' ? connection.bom : connectionDefaults.bom,
    lineEnding: option('lineEnding') === 'crlf' ? '\r\n' : '\n',
    csv: {
      delimiter: tabSeparated ? '\t' : option('delimiter'),
      quote: option('quote'),
      header: typeof definition.header === 'boolean' ? definition.header : columns === undefined,
      columns,
    },
    columnNames: new Map(Object.entries((definition.columnNames as Record<string, string> | undefined) ?? {})),
    archiveTo: typeof archive?.moveTo === 'string' ? archive.moveTo : undefined,
  };
}

export function fileObjects(system: SystemDefinition): ReadonlyMap<string, FileObject> {
  return buildObjects(system, {
    object: (definition) => ({ file: fileOptions(system.connection, definition) }),
    group: () => ({}),
  });
}

/** The name of a field in the file: its columnNames entry, else its own. */
export function nameInFile(object: FileObject, field: string): string {
  return object.file.columnNames.get(field) ?? field;
}
