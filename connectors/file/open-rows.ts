/**
 * One file of an object opened for reading, whatever its format: its layout (how its rows carry
 * records), whether it starts with a byte order mark (a rewrite keeps it), and its rows in
 * batches. A file that does not exist yet reads as empty, laid out as the connector would create
 * it. The file is opened by its confined, resolved path without following a link.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { READ_FLAGS, type ConfinedFile } from './confinement.js';
import { byteOrderMark, startsWithMark } from './encodings.js';
import { ioError, type Place } from './file-errors.js';
import type { FileObject } from './file-object.js';
import { declaredColumns } from './check-system.js';
import { csvRows, keyColumnMissing } from './csv-rows.js';
import { jsonRows, ndjsonRows } from './json-rows.js';
import { CsvLayout, JsonLayout, type Cells, type JsonRow } from './row-layout.js';
import type { RowOrigins } from './row-origins.js';

interface Opened {
  /** The file starts with a byte order mark. */
  bom: boolean;
  /** Ends the read and closes the file, whether the batches were read or not: call it in a finally. */
  close(): Promise<void>;
}

export type OpenedRows =
  | (Opened & { format: 'csv'; layout: CsvLayout; batches: AsyncGenerator<Cells[]> })
  | (Opened & { format: 'json' | 'ndjson'; layout: JsonLayout; batches: AsyncGenerator<JsonRow[]> });

const nothingToClose = async (): Promise<void> => {};

export interface OpenSettings {
  maxJsonBytes: number;
  batchSize: number;
  /** Where to note each row's origin (a rewrite's second pass): unset for reads. */
  origins?: RowOrigins;
}

async function* none<T>(): AsyncGenerator<T[]> {}

async function* inBatches<T>(rows: readonly T[], size: number): AsyncGenerator<T[]> {
  for (let at = 0; at < rows.length; at += size) yield rows.slice(at, at + size);
}

/** The columns of a CSV file the connector creates: the object's, or its declared fields and group fields. */
export function newCsvColumns(object: FileObject): string[] {
  if (object.file.csv.columns !== undefined) return [...object.file.csv.columns];
  return declaredColumns({
    key: [...object.key],
    fields: Object.fromEntries([...object.fields.keys()].map((name) => [name, { type: object.fields.get(name)!.type }])),
    groups: Object.fromEntries(
      [...object.groups.values()].map((group) => [
        group.name,
        {
          types: [...group.types],
          fields: Object.fromEntries([...group.fields.keys()].map((name) => [name, { type: 'String' as const }])),
        },
      ]),
    ),
    columnNames: Object.fromEntries(object.file.columnNames),
  });
}

async function hasMark(handle: FileHandle, object: FileObject, place: Place): Promise<boolean> {
  const start = Buffer.alloc(3);
  try {
    const { bytesRead } = await handle.read(start, 0, 3, 0);
    return startsWithMark(start.subarray(0, bytesRead), object.file.encoding);
  } catch (error) {
    throw ioError(place, 'reading the file', error);
  }
}

export async function openRows(file: ConfinedFile, object: FileObject, settings: OpenSettings, place: Place): Promise<OpenedRows> {
  const here: Place = { ...place, file: file.relative };
  if (object.file.format !== 'csv') {
    const layout = new JsonLayout(object);
    if (!file.exists) return { format: object.file.format, layout, bom: false, batches: none(), close: nothingToClose };
    const handle = await open(file.path, READ_FLAGS).catch((error: unknown) => {
      throw ioError(here, 'opening the file', error);
    });
    let bom: boolean;
    try {
      bom = await hasMark(handle, object, here);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    if (object.file.format === 'ndjson') {
      const batches = ndjsonRows(handle, object.file.encoding, here, settings.batchSize, settings.origins);
      const close = async () => {
        await batches.return(undefined);
        await handle.close().catch(() => undefined);
      };
      return { format: 'ndjson', layout, bom, batches, close };
    }
    const rows = await jsonRows(handle, object.file.encoding, here, settings.maxJsonBytes, settings.origins);
    return { format: 'json', layout, bom, batches: inBatches(rows, settings.batchSize), close: nothingToClose };
  }
  if (!file.exists) {
    return { format: 'csv', layout: new CsvLayout(object, newCsvColumns(object)), bom: false, batches: none(), close: nothingToClose };
  }
  const handle = await open(file.path, READ_FLAGS).catch((error: unknown) => {
    throw ioError(here, 'opening the file', error);
  });
  let bom: boolean;
  try {
    bom = await hasMark(handle, object, here);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  const markBytes = bom ? (byteOrderMark(object.file.encoding)?.length ?? 0) : 0;
  const keep = settings.origins === undefined ? undefined : { origins: settings.origins, markBytes };
  const rows = await csvRows(handle, object.file, here, settings.batchSize, keep);
  // An empty file (no header line yet) is laid out as a new one.
  const columns = rows.columns ?? newCsvColumns(object);
  const layout = new CsvLayout(object, columns);
  if (rows.columns !== undefined && object.file.csv.header) {
    const missing = object.key.find((field) => !layout.hasColumn(field));
    if (missing !== undefined) {
      await rows.close();
      throw keyColumnMissing(here, missing, rows.columns, object.file.csv.delimiter);
    }
  }
  return { format: 'csv', layout, bom, batches: rows.batches, close: rows.close };
}
