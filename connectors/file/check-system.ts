/**
 * What `syncline validate` checks of a `file` System beyond its schema, each problem at the
 * setting to change: paths that would leave the directory ('..', absolute), an object whose
 * format neither its `format` nor its extension says, CSV options that contradict each other,
 * `columns` and `columnNames` that miss or invent fields, an archive outside the directory, and
 * named queries, which files do not have. Nothing here touches the disk: whether the directory
 * exists and lies inside the allowed roots is for the connection to say (check(), every read).
 */
import type { ConnectorProblem } from '../../definitions/connector-spec.js';
import type { ObjectDefinition, SystemDefinition } from '../../definitions/types.js';
import { formatOfPath, type FileFormat } from './file-object.js';

type Path = ReadonlyArray<string | number>;

/** Why a relative path written in a definition would reach outside the directory, or undefined. */
export function pathProblem(path: string): string | undefined {
  if (path.includes('\u0000')) return 'holds a NUL character';
  if (path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path)) return 'is absolute';
  if (path.split(/[/\\]/).includes('..')) return "has a '..' segment";
  return undefined;
}

/** The column names a CSV object's declared fields and group fields take in its file. */
export function declaredColumns(definition: ObjectDefinition): string[] {
  const names = (definition.columnNames as Record<string, string> | undefined) ?? {};
  const columns = Object.keys(definition.fields).map((field) => names[field] ?? field);
  for (const [group, entry] of Object.entries(definition.groups ?? {})) {
    for (const type of entry.types) for (const field of Object.keys(entry.fields)) columns.push(`${group}.${type}.${field}`);
  }
  return columns;
}

function checkObject(
  name: string,
  definition: ObjectDefinition,
  systemReadOnly: boolean,
  report: (path: Path, code: string, message: string, warning?: boolean) => void,
): void {
  const at = (...rest: Array<string | number>): Path => ['objects', name, ...rest];
  const label = `objects.${name}`;
  const path = typeof definition.path === 'string' ? definition.path : '';
  const outside = pathProblem(path);
  if (outside !== undefined) {
    report(
      at('path'),
      'path-outside-directory',
      `${label}.path '${path}' ${outside}; give a file or glob relative to the connection's directory (move the directory instead to reach files elsewhere)`,
    );
  }
  const format = (definition.format as FileFormat | undefined) ?? formatOfPath(path);
  if (format === undefined) {
    report(
      at('path'),
      'format-unknown',
      `${label}: the path '${path}' does not say the format (.csv, .tsv, .json, .ndjson, .jsonl); set format: csv, json or ndjson`,
    );
  }
  const columns = definition.columns as string[] | undefined;
  if (definition.header === false && columns === undefined) {
    report(at('header'), 'columns-missing', `${label}.header is false: name the file's columns in order with columns: [...]`);
  }
  if (definition.header === true && columns !== undefined) {
    report(
      at('columns'),
      'columns-with-header',
      `${label}.columns is for files without a header line; set header: false, or remove columns`,
    );
  }
  if (format !== undefined && format !== 'csv') {
    for (const option of ['header', 'columns', 'delimiter', 'quote'] as const) {
      if (definition[option] !== undefined) {
        report(at(option), 'csv-option', `${label}.${option} is a CSV option; the object's format is ${format}, so it has no effect`, true);
      }
    }
  }
  const delimiter = typeof definition.delimiter === 'string' ? definition.delimiter : undefined;
  const quote = typeof definition.quote === 'string' ? definition.quote : undefined;
  for (const [option, value] of [
    ['delimiter', delimiter],
    ['quote', quote],
  ] as const) {
    if (value === '\n' || value === '\r') report(at(option), 'line-break', `${label}.${option} cannot be a line break`);
  }
  if (delimiter !== undefined && delimiter === (quote ?? '"')) {
    report(at('delimiter'), 'delimiter-is-quote', `${label}.delimiter and quote must differ`);
  }
  const names = (definition.columnNames as Record<string, string> | undefined) ?? {};
  const inFile = new Map<string, string>();
  for (const field of Object.keys(definition.fields)) {
    const fileName = names[field] ?? field;
    const other = inFile.get(fileName);
    if (other !== undefined) {
      report(
        at('columnNames', Object.hasOwn(names, field) ? field : other),
        'column-name-taken',
        `${label}.columnNames: fields ${other} and ${field} would both be '${fileName}' in the file`,
      );
    }
    inFile.set(fileName, field);
  }
  for (const field of Object.keys(names)) {
    if (!Object.hasOwn(definition.fields, field)) {
      report(
        at('columnNames', field),
        'unknown-field',
        `${label}.columnNames: '${field}' is not one of the object's fields (${Object.keys(definition.fields).join(', ')})`,
      );
    }
  }
  if (columns !== undefined && (format ?? 'csv') === 'csv') {
    const missing = declaredColumns(definition).filter((column) => !columns.includes(column));
    if (missing.length > 0) {
      report(at('columns'), 'column-missing', `${label}.columns has no column for ${missing.join(', ')}; add them, or remove those fields`);
    }
  }
  const archive = definition.archive as { moveTo?: string } | undefined;
  if (typeof archive?.moveTo === 'string') {
    const problem = pathProblem(archive.moveTo);
    const itself = archive.moveTo.split('/').every((segment) => segment === '' || segment === '.');
    if (problem !== undefined || itself) {
      report(
        at('archive', 'moveTo'),
        'path-outside-directory',
        `${label}.archive.moveTo '${archive.moveTo}' ${problem ?? 'is the directory itself'}; give a directory inside the connection's directory, such as done/`,
      );
    }
  }
  // Archiving moves files: a System or object declared read-only would fail every settle at run time.
  if (archive !== undefined && (systemReadOnly || definition.readOnly === true)) {
    const which = definition.readOnly === true ? `${label} is readOnly` : 'the System is readOnly';
    report(
      at('archive'),
      'archive-read-only',
      `${label}.archive moves files after a run, but ${which}; remove archive, or readOnly (a glob object is read-only for writes already and may archive)`,
    );
  }
}

export function checkFileSystem(system: SystemDefinition): ConnectorProblem[] {
  const problems: ConnectorProblem[] = [];
  const report = (path: Path, code: string, message: string, warning = false) =>
    problems.push({ path, code, message, ...(warning ? { warning } : {}) });
  const directory = typeof system.connection.directory === 'string' ? system.connection.directory : '';
  if (directory.includes('\u0000')) report(['connection', 'directory'], 'invalid-path', 'connection.directory holds a NUL character');
  for (const name of Object.keys(system.queries ?? {})) {
    report(
      ['queries', name],
      'queries-unsupported',
      `queries.${name}: the file connector has no named queries (files have no query language); read an object with a where instead`,
    );
  }
  for (const [name, definition] of Object.entries(system.objects ?? {})) checkObject(name, definition, system.readOnly === true, report);
  return problems;
}
