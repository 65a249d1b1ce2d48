/**
 * A Connection to one System of the `http` connector: the object model built from the definition
 * (http-object.ts) and one WebClient (connectors/web) for every request — its auth, retries, rate
 * limit, timeouts and size cap apply to all of them. Nothing is sent until an operation needs it,
 * so creating a connection never fails.
 */
import type { SystemDefinition } from '../../definitions/types.js';
import type {
  Connection,
  DiscoveredObject,
  ObjectDescription,
  QueryResult,
  ReadRequest,
  RecordData,
  WriteRequest,
  WriteResult,
} from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { describeObject } from '../records/describe-object.js';
import { WebClient } from '../web/index.js';
import { discoverObjects } from './discover.js';
import { buildObjects, objectNamed, objectOrError, type HttpObject } from './http-object.js';
import { countRecords, readPages, type ObjectScope } from './read.js';
import { writeMany } from './write-many.js';
import { httpWriteRefusal, writeRecord } from './write.js';

export class HttpConnection implements Connection {
  private readonly objects: ReadonlyMap<string, HttpObject>;
  private readonly web: WebClient;
  private closed = false;

  constructor(private readonly system: SystemDefinition) {
    this.objects = buildObjects(system);
    this.web = WebClient.forSystem(system, 'http');
  }

  private scope(objectName: string): ObjectScope {
    if (this.closed) {
      throw new ConnectorError(
        'unavailable',
        `the connection to system '${this.system.id}' was closed (its definition changed or the runtime is stopping); retry`,
        { details: { system: this.system.id, reason: 'closed' } },
      );
    }
    return { web: this.web, systemId: this.system.id, object: objectNamed(this.objects, this.system.id, objectName) };
  }

  describe(object: string): ObjectDescription {
    return describeObject(objectNamed(this.objects, this.system.id, object));
  }

  async *read(object: string, request: ReadRequest = {}): AsyncIterable<RecordData[]> {
    yield* readPages(this.scope(object), request);
  }

  count(object: string, request: Pick<ReadRequest, 'filter' | 'placeholders' | 'signal'> = {}): Promise<number> {
    return Promise.resolve().then(() => countRecords(this.scope(object), request));
  }

  /** Only a total the API tells, unfiltered (read.ts countRecords); any other count pages through the records. */
  countsCheaply(object: string, request: Pick<ReadRequest, 'filter'> = {}): boolean {
    return request.filter === undefined && this.scope(object).object.total !== undefined;
  }

  query(): Promise<QueryResult> {
    return Promise.reject(
      new ConnectorError(
        'unsupported',
        `system '${this.system.id}' uses the http connector, which runs no free queries (a REST API takes no statements); read its objects instead`,
        { details: { connector: 'http', capability: 'readOnlyQuery' } },
      ),
    );
  }

  write(object: string, request: WriteRequest): Promise<WriteResult> {
    return Promise.resolve().then(() => writeRecord(this.scope(object), request));
  }

  writeMany(object: string, requests: readonly WriteRequest[]): Promise<Array<WriteResult | ConnectorError>> {
    if (requests.length === 0) return Promise.resolve([]);
    return Promise.resolve().then(() => {
      let scope: ObjectScope;
      try {
        scope = this.scope(object);
      } catch (error) {
        // An undeclared object is every request's failure, as `write` would answer each of them.
        if (error instanceof ConnectorError && error.code === 'unknown-object') return requests.map(() => error);
        throw error;
      }
      return writeMany(scope, requests, Number(this.system.connection.writeConcurrency ?? 4));
    });
  }

  checkWrite(objectName: string, request: WriteRequest, action: 'create' | 'update'): ConnectorError | undefined {
    const object = objectOrError(this.objects, this.system.id, objectName);
    return object instanceof ConnectorError ? object : httpWriteRefusal({ object, systemId: this.system.id }, request, action);
  }

  check(): Promise<void> {
    const path = typeof this.system.connection.check === 'string' ? this.system.connection.check : '';
    return this.web.check(path);
  }

  discover(): Promise<DiscoveredObject[]> {
    const paths = (this.system.connection.discover ?? []) as string[];
    return discoverObjects(this.web, this.system.id, this.objects, paths);
  }

  /** Nothing to release: requests in flight finish, later ones are refused. */
  async close(): Promise<void> {
    this.closed = true;
  }
}
