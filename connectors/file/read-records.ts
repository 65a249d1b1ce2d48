/**
 * Reading an object: its files (the one of its path, or those its glob matches, in path order),
 * each streamed in batches of rows and decoded into records of the declared types, the records of
 * one file in file order. Filter, id, order, skip, limit and count are the shared in-memory reader's
 * (records/in-memory-read.ts), so they mean exactly what the expression language defines; without
 * an order only a page is held, with one the selected records are (it sorts them).
 *
 * A read given a receipt notes each file it read to the end, with the version (size, modification
 * time, inode) it had before and after — a file still being written is not noted, so it is not
 * archived (archive.ts) with records the sync has not seen.
 */
import type { ReadReceipt, ReadRequest, RecordData } from '../connection.js';
import { countInMemory, pagesInMemory, planMemoryRead } from '../records/in-memory-read.js';
import { confinedFile } from './confinement.js';
import { pathProblem } from './check-system.js';
import { fileError, type Place } from './file-errors.js';
import type { FileObject } from './file-object.js';
import { fileVersion } from './file-version.js';
import { matchingFiles } from './find-files.js';
import { openRows } from './open-rows.js';
import type { RowLayout } from './row-layout.js';

export interface ReadScope {
  systemId: string;
  object: FileObject;
  /** The System's directory, resolved and confined. */
  directory: string;
  maxJsonBytes: number;
}

/** Rows decoded per batch: the pages the in-memory reader selects from. */
const BATCH_ROWS = 1000;

/** The files of the object, relative to the directory, in the order they are read. */
export async function objectFiles(scope: ReadScope): Promise<string[]> {
  const { file } = scope.object;
  // Validation refuses such a path; a definition built in code has not been validated.
  const outside = pathProblem(file.path);
  if (outside !== undefined) {
    throw fileError('unavailable', { systemId: scope.systemId, object: scope.object.name }, `its path ${outside}; refused`);
  }
  return file.isGlob ? matchingFiles(scope.directory, file.path, file.archiveTo) : [file.path];
}

/** Every record of every file of the object, in batches; notes the files read to the end in `receipt`. */
export async function* recordBatches(scope: ReadScope, signal?: AbortSignal, receipt?: ReadReceipt): AsyncGenerator<RecordData[]> {
  const { object } = scope;
  const place: Place = { systemId: scope.systemId, object: object.name };
  for (const relative of await objectFiles(scope)) {
    signal?.throwIfAborted();
    const file = await confinedFile(scope.directory, relative, place);
    const before = receipt !== undefined && file.exists ? await fileVersion(file.path) : undefined;
    const opened = await openRows(file, object, { maxJsonBytes: scope.maxJsonBytes, batchSize: BATCH_ROWS }, place);
    const layout = opened.layout as RowLayout<unknown>;
    try {
      for await (const rows of opened.batches as AsyncGenerator<unknown[]>) {
        const records = new Array<RecordData>(rows.length);
        for (let at = 0; at < rows.length; at++) records[at] = layout.record(rows[at]);
        yield records;
        signal?.throwIfAborted();
      }
    } finally {
      await opened.close();
    }
    if (before !== undefined && (await fileVersion(file.path)) === before) receipt!.completed.push({ source: relative, version: before });
  }
}

/** The records a request selects, in pages. Fields and the id are checked before a file is opened. */
export async function* readRecords(scope: ReadScope, request: ReadRequest): AsyncGenerator<RecordData[]> {
  const plan = planMemoryRead(scope.object, request);
  yield* pagesInMemory(recordBatches(scope, request.signal, request.receipt), plan, request.signal);
}

export async function countRecords(scope: ReadScope, request: Pick<ReadRequest, 'filter' | 'placeholders' | 'signal'>): Promise<number> {
  const plan = planMemoryRead(scope.object, request);
  return countInMemory(recordBatches(scope, request.signal), plan, request.signal);
}
