/**
 * Writes to a file: a keyed upsert of a batch as one read-modify-write under the file's lock
 * (file-lock.ts), ending in one atomic rewrite (atomic-file.ts).
 *
 * 1. Each request is checked as every connector checks writes (records/write-checks.ts): types,
 *    unknown and read-only fields, group entries; and its values must fit the file's encoding.
 *    A request that fails here fails alone.
 * 2. Under the lock, a first pass streams the file and finds the rows each request's lookups name
 *    (plan-writes.ts); the batch is replayed in memory: updates, creates, skips, refusals.
 * 3. When anything changed, a second pass streams the file again into a temporary file, each row
 *    the batch changed written anew and every other row copied byte for byte (row-origins.ts),
 *    the new rows after them — the header, the columns other tools added, the byte order mark and
 *    the options kept — and renames it over the original, after checking that the lock is still
 *    held and the file unchanged since the first pass.
 *
 * Either every change of the batch is in the file or none is: a failure of the disk rejects the
 * whole batch and leaves the file as it was. Writes need the object's path to name one file.
 */
import { open as openFile, stat, type FileHandle } from 'node:fs/promises';
import type { RecordData, WriteRequest, WriteResult } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { checkGroupEntry, checkWrite, newRecordValues } from '../records/write-checks.js';
import { writeAll, replaceFile } from './atomic-file.js';
import { confinedFile, confinedFolder, READ_FLAGS, type ConfinedFile } from './confinement.js';
import { pathProblem } from './check-system.js';
import { canEncode } from './encodings.js';
import { fileError, ioError, type Place } from './file-errors.js';
import type { FileObject, FileOptions, FileSettings } from './file-object.js';
import { fileVersion, versionOf } from './file-version.js';
import { withFileLock, type HeldLock } from './file-lock.js';
import { openRows, type OpenedRows } from './open-rows.js';
import { lookupOf, Lookups, planWrites, type PreparedWrite, type WritePlan } from './plan-writes.js';
import type { GroupValues, RowLayout } from './row-layout.js';
import type { RowOrigins } from './row-origins.js';
import { csvWriter, jsonWriter, ndjsonWriter, type RowWriter } from './row-writers.js';

export interface WriteScope {
  systemId: string;
  object: FileObject;
  /** The System's directory, resolved and confined. */
  directory: string;
  settings: FileSettings;
}

const BATCH_ROWS = 1000;

function notOneFile(object: FileObject): ConnectorError {
  return new ConnectorError(
    'read-only',
    `${object.name} of system '${object.systemId}' reads the files of a glob (path '${object.file.path}'); writes need path to name one file`,
    { details: { object: object.name, reason: 'glob' } },
  );
}

function checkEncodable(object: FileObject, label: string, value: unknown): void {
  if (value === null || value === undefined) return;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (!canEncode(text, object.file.encoding)) {
    throw new ConnectorError(
      'invalid-value',
      `${label}: the value has a character the file's encoding (${object.file.encoding}) cannot hold`,
      { details: { field: label, encoding: object.file.encoding } },
    );
  }
}

/** A request checked and turned into its lookups; throws what the request is answered. */
export function prepareWrite(object: FileObject, request: WriteRequest): PreparedWrite {
  const checked = checkWrite(object, request);
  const groups: Record<string, Record<string, RecordData>> = {};
  for (const [name, entries] of Object.entries(request.groups ?? {})) {
    const group = object.groups.get(name)!;
    groups[name] = {};
    for (const [type, entry] of Object.entries(entries)) groups[name][type] = checkGroupEntry(object, group, type, entry);
  }
  for (const [name, value] of Object.entries(checked.settable)) checkEncodable(object, `${object.name}.${name}`, value);
  for (const [name, value] of Object.entries(checked.match ?? {})) checkEncodable(object, `${object.name}.${name}`, value);
  for (const [name, entries] of Object.entries(groups)) {
    for (const [type, entry] of Object.entries(entries)) {
      for (const [field, value] of Object.entries(entry)) checkEncodable(object, `${object.name}.${name}[${type}].${field}`, value);
    }
  }
  const find = checked.match === undefined ? undefined : lookupOf(object, checked.match, Object.keys(checked.match).sort());
  const identity: RecordData = { ...(checked.match ?? {}), ...checked.settable };
  const complete = object.key.every((name) => identity[name] !== undefined && identity[name] !== null);
  return { checked, groups: groups as GroupValues, find, key: complete ? lookupOf(object, identity, object.key) : undefined };
}

/**
 * The refusal a write meets before the file is read (Connection.checkWrite): what prepareWrite
 * checks, a glob's objects taking no writes, and for a create the new record's values; or undefined.
 */
export function fileWriteRefusal(object: FileObject, request: WriteRequest, action: 'create' | 'update'): ConnectorError | undefined {
  try {
    if (object.file.isGlob && !object.readOnly) throw notOneFile(object);
    const prepared = prepareWrite(object, request);
    if (action === 'create') newRecordValues(object, prepared.checked);
    return undefined;
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    throw error;
  }
}

/** The single Integer key a create may be given as the largest plus one. */
function generatedKeyOf(object: FileObject): string | undefined {
  const [only, ...more] = object.key;
  return only !== undefined && more.length === 0 && object.fields.get(only)?.type === 'Integer' ? only : undefined;
}

/** First pass: the rows the lookups find, kept by index, and how many rows the file has. */
async function findRows<R>(opened: OpenedRows, layout: RowLayout<R>, lookups: Lookups): Promise<{ kept: Map<number, R>; count: number }> {
  const kept = new Map<number, R>();
  let index = 0;
  try {
    for await (const batch of opened.batches as AsyncGenerator<R[]>) {
      for (const row of batch) {
        if (lookups.visit(index, (field) => layout.value(row, field))) kept.set(index, row);
        index += 1;
      }
    }
  } finally {
    await opened.close();
  }
  return { kept, count: index };
}

/** The line end of the file's first line, when it has one within its first 64 KiB. */
async function lineEndingOf(source: FileHandle, options: FileOptions): Promise<'\n' | '\r\n' | undefined> {
  const start = Buffer.alloc(64 * 1024);
  const { bytesRead } = await source.read(start, 0, start.length, 0);
  const text = start.subarray(0, bytesRead).toString(options.encoding);
  const end = text.indexOf('\n');
  if (end === -1) return undefined;
  return text[end - 1] === '\r' ? '\r\n' : '\n';
}

/** Reads `length` bytes of the original file from `start`. */
async function readRange(source: FileHandle, start: number, length: number): Promise<Buffer> {
  const bytes = Buffer.alloc(length);
  for (let done = 0; done < length; ) {
    const { bytesRead } = await source.read(bytes, done, length - done, start + done);
    if (bytesRead === 0) throw new Error('the file ended before a row it had');
    done += bytesRead;
  }
  return bytes;
}

/**
 * Second pass: the file again, each row the plan changed written anew and every other row copied
 * as it was (its bytes, runs of neighbours read at once), the added rows last. `copyRows` is false
 * when a row cannot stay as it was (CSV columns were added: every row gets their cells). The
 * caller closes `reopened` and `source`, whatever happens here.
 */
async function writeRows<R>(
  handle: FileHandle,
  reopened: OpenedRows,
  origins: RowOrigins,
  source: FileHandle | undefined,
  writer: RowWriter<R>,
  plan: WritePlan<R>,
  pass: { bom: boolean; columns?: readonly string[]; count: number; pad: (row: R) => R; copyRows: boolean },
  place: Place,
): Promise<void> {
  await writeAll(handle, writer.start(pass.bom, pass.columns));
  let index = 0;
  for await (const batch of reopened.batches as AsyncGenerator<R[]>) {
    const out: Buffer[] = [];
    let fresh: R[] = [];
    let run: { start: number; end: number } | undefined;
    const flushFresh = () => {
      if (fresh.length > 0) out.push(writer.rows(fresh));
      fresh = [];
    };
    const flushRun = async () => {
      if (run !== undefined && source !== undefined) out.push(writer.copied(await readRange(source, run.start, run.end - run.start)));
      run = undefined;
    };
    for (const row of batch) {
      const changed = plan.changed.get(index++);
      const origin = changed === undefined && pass.copyRows ? origins.get(row as object) : undefined;
      if (origin === undefined) {
        await flushRun();
        fresh.push(pass.pad(changed ?? row));
      } else if ('text' in origin) {
        flushFresh();
        out.push(writer.copied(origin.text));
      } else {
        flushFresh();
        if (run !== undefined && run.end === origin.start) run.end = origin.end;
        else {
          await flushRun();
          run = { ...origin };
        }
      }
    }
    flushFresh();
    await flushRun();
    await writeAll(handle, Buffer.concat(out));
  }
  if (index !== pass.count) throw fileError('unavailable', place, 'the file changed while it was rewritten; nothing was written, retry');
  for (let at = 0; at < plan.added.length; at += BATCH_ROWS) {
    await writeAll(handle, writer.rows(plan.added.slice(at, at + BATCH_ROWS).map(pass.pad)));
  }
  await writeAll(handle, writer.end());
}

async function rewrite(scope: WriteScope, file: ConfinedFile, requests: ReadonlyArray<PreparedWrite | ConnectorError>, lock: HeldLock) {
  const { object, settings } = scope;
  const place: Place = { systemId: scope.systemId, object: object.name, file: file.relative };
  const settingsOfOpen = { maxJsonBytes: settings.maxJsonBytes, batchSize: BATCH_ROWS };
  const stats = await stat(file.path).catch(() => undefined);
  const before = versionOf(stats);
  const opened = await openRows(file, object, settingsOfOpen, place);
  const prepared = requests.map((request) => (request instanceof ConnectorError ? undefined : request));
  const lookups = new Lookups([...prepared.map((write) => write?.find), ...prepared.map((write) => write?.key)], generatedKeyOf(object));
  const layout = opened.layout as RowLayout<unknown>;
  // Taken before the plan, which may add columns for fields the file lacks.
  const width = opened.format === 'csv' ? opened.layout.columns.length : 0;
  const { kept, count } = await findRows(opened, layout, lookups);
  const plan = planWrites(object, layout, requests, lookups, kept, generatedKeyOf(object));
  if (plan.changed.size === 0 && plan.added.length === 0) return plan.results;
  const csv = opened.format === 'csv' ? opened.layout : undefined;
  const pad = csv === undefined ? (row: unknown) => row : (row: unknown) => csv.padded(row as never);
  try {
    await replaceFile(
      file.path,
      async (handle) => {
        const origins: RowOrigins = new WeakMap();
        const reopened = await openRows(file, object, { ...settingsOfOpen, origins }, place);
        let source: FileHandle | undefined;
        try {
          // The bytes of rows left as they were are copied from here (a JSON array's from its text).
          if (file.exists) source = await openFile(file.path, READ_FLAGS);
          // Rows kept as they were keep their line ends, so new ones take the file's: a CSV
          // reader meeting a CRLF after an LF line would read the CR as text after a quote.
          const options = { ...object.file, lineEnding: (source && (await lineEndingOf(source, object.file))) ?? object.file.lineEnding };
          const writer = (
            opened.format === 'csv'
              ? csvWriter(options)
              : (opened.format === 'json' ? jsonWriter : ndjsonWriter)(options, (row) => opened.layout.text(row))
          ) as RowWriter<unknown>;
          // A file keeps its byte order mark; one the connector starts takes the object's setting.
          const bom = opened.bom || ((stats?.size ?? 0) === 0 && object.file.bom);
          const columns = csv === undefined ? {} : { columns: csv.columns };
          const copyRows = csv === undefined || csv.columns.length === width;
          await writeRows(handle, reopened, origins, source, writer, plan, { bom, ...columns, count, pad, copyRows }, place);
        } finally {
          await reopened.close();
          await source?.close().catch(() => undefined);
        }
      },
      async () => {
        await lock.assertHeld();
        const after = await fileVersion(file.path);
        if (after !== before) throw fileError('unavailable', place, 'the file changed while it was rewritten; nothing was written, retry');
      },
    );
  } catch (error) {
    throw ioError(place, 'rewriting the file', error);
  }
  return plan.results;
}

/** Writes a batch to the object's file; each request's answer in request order, or a rejection of the whole batch. */
export async function writeRecords(scope: WriteScope, requests: readonly WriteRequest[]): Promise<Array<WriteResult | ConnectorError>> {
  const { object } = scope;
  const prepared = requests.map((request) => {
    try {
      if (object.file.isGlob && !object.readOnly) throw notOneFile(object);
      return prepareWrite(object, request);
    } catch (error) {
      if (error instanceof ConnectorError) return error;
      throw error;
    }
  });
  const refused = prepared.filter((write): write is ConnectorError => write instanceof ConnectorError);
  if (refused.length === prepared.length) return refused;
  const place: Place = { systemId: scope.systemId, object: object.name, file: object.file.path };
  const outside = pathProblem(object.file.path);
  if (outside !== undefined) throw fileError('unavailable', { ...place, file: undefined }, `its path ${outside}; refused`);
  const slash = object.file.path.lastIndexOf('/');
  if (slash > 0) await confinedFolder(scope.directory, object.file.path.slice(0, slash), place);
  const target = await confinedFile(scope.directory, object.file.path, place);
  return withFileLock(target.path, scope.settings.lockWaitMs, place, async (lock) => {
    // Resolved again under the lock: another writer may have created the file meanwhile.
    const file = await confinedFile(scope.directory, object.file.path, place);
    return rewrite(scope, file, prepared, lock);
  });
}
