/**
 * A Connection to one System of the `file` connector: its objects and settings built from the
 * definition once, and every operation starting from the System's directory resolved and
 * confined anew (confinement.ts) — a directory swapped for a link since the last call is caught
 * before a byte is read. Creating a connection touches nothing.
 *
 * Reads stream the object's files (read-records.ts); writes rewrite one file under its lock
 * (write-records.ts); `settle` archives what a sync read (archive.ts). Files have no query
 * language: free queries are answered 'unsupported'.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { SystemDefinition } from '../../definitions/types.js';
import type {
  Connection,
  ConnectionContext,
  DiscoveredObject,
  ObjectDescription,
  QueryResult,
  ReadReceipt,
  ReadRequest,
  RecordData,
  WriteRequest,
  WriteResult,
} from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { describeObject } from '../records/describe-object.js';
import { objectNamed, objectOrError } from '../records/object-model.js';
import { archiveFiles } from './archive.js';
import { confinementOf, realDirectory, type Confinement } from './confinement.js';
import { discoverFiles } from './discover.js';
import { fileError } from './file-errors.js';
import { fileObjects, fileSettings, type FileObject, type FileSettings } from './file-object.js';
import { countRecords, readRecords, type ReadScope } from './read-records.js';
import { fileWriteRefusal, writeRecords } from './write-records.js';

export class FileConnection implements Connection {
  private readonly objects: ReadonlyMap<string, FileObject>;
  private readonly settings: FileSettings;
  private readonly confinement: Confinement;
  private readonly writing = new Set<Promise<unknown>>();
  private closed = false;

  constructor(
    private readonly system: SystemDefinition,
    context: ConnectionContext,
  ) {
    this.objects = fileObjects(system);
    this.settings = fileSettings(system);
    this.confinement = confinementOf(system.id, this.settings.directory, context);
  }

  private async directory(): Promise<string> {
    if (this.closed) {
      throw new ConnectorError(
        'unavailable',
        `the connection to system '${this.system.id}' was closed (its definition changed or the runtime is stopping); retry`,
        { details: { system: this.system.id, reason: 'closed' } },
      );
    }
    return realDirectory(this.confinement);
  }

  private async scope(objectName: string): Promise<ReadScope> {
    const object = objectNamed(this.objects, this.system.id, objectName);
    return { systemId: this.system.id, object, directory: await this.directory(), maxJsonBytes: this.settings.maxJsonBytes };
  }

  describe(object: string): ObjectDescription {
    return describeObject(objectNamed(this.objects, this.system.id, object));
  }

  async *read(object: string, request: ReadRequest = {}): AsyncIterable<RecordData[]> {
    yield* readRecords(await this.scope(object), request);
  }

  async count(object: string, request: Pick<ReadRequest, 'filter' | 'placeholders' | 'signal'> = {}): Promise<number> {
    return countRecords(await this.scope(object), request);
  }

  query(): Promise<QueryResult> {
    return Promise.reject(
      new ConnectorError(
        'unsupported',
        `system '${this.system.id}' uses the file connector, which has no free queries (it lacks the capability readOnlyQuery); read an object with a filter instead`,
        { details: { system: this.system.id, capability: 'readOnlyQuery' } },
      ),
    );
  }

  async write(object: string, request: WriteRequest): Promise<WriteResult> {
    const [result] = await this.writeMany(object, [request]);
    if (result instanceof ConnectorError) throw result;
    return result!;
  }

  writeMany(object: string, requests: readonly WriteRequest[]): Promise<Array<WriteResult | ConnectorError>> {
    if (requests.length === 0) return Promise.resolve([]);
    const done = (async () => {
      let scope: ReadScope;
      try {
        scope = await this.scope(object);
      } catch (error) {
        // An undeclared object is every request's failure, as `write` would answer each of them.
        if (error instanceof ConnectorError && error.code === 'unknown-object') return requests.map(() => error);
        throw error;
      }
      return writeRecords({ ...scope, settings: this.settings }, requests);
    })();
    this.writing.add(done);
    void done.finally(() => this.writing.delete(done)).catch(() => undefined);
    return done;
  }

  checkWrite(objectName: string, request: WriteRequest, action: 'create' | 'update'): ConnectorError | undefined {
    const object = objectOrError(this.objects, this.system.id, objectName);
    return object instanceof ConnectorError ? object : fileWriteRefusal(object, request, action);
  }

  async settle(object: string, receipt: ReadReceipt): Promise<void> {
    await archiveFiles(await this.scope(object), receipt, this.settings.lockWaitMs);
  }

  /** The directory exists, lies inside the roots, and can be read (and written, unless the System is read-only). */
  async check(): Promise<void> {
    const directory = await this.directory();
    const readOnly = this.system.readOnly ?? false;
    try {
      await access(directory, readOnly ? constants.R_OK | constants.X_OK : constants.R_OK | constants.W_OK | constants.X_OK);
    } catch (error) {
      throw fileError(
        'unavailable',
        { systemId: this.system.id },
        `its connection.directory cannot be ${readOnly ? 'read' : 'read and written'} by this process (permission denied); give the service's user access to it`,
        error,
      );
    }
  }

  async discover(): Promise<DiscoveredObject[]> {
    const archives = [...this.objects.values()].flatMap((object) => (object.file.archiveTo === undefined ? [] : [object.file.archiveTo]));
    return discoverFiles({
      systemId: this.system.id,
      directory: await this.directory(),
      connection: this.system.connection,
      maxJsonBytes: this.settings.maxJsonBytes,
      archives: archives.map((folder) => folder.replace(/^\.\/|\/+$/g, '')),
    });
  }

  /** Refuses new operations and waits for the writes in progress, so none is cut off halfway. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.writing]);
  }
}
