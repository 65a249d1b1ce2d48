/**
 * A Connection to one OData v4 service: the object model built from the definition, one web client
 * (connectors/web: auth, retries, rate, timeouts, size cap), the service's $metadata fetched on first
 * need (service-metadata.ts), the `$batch` format learned on first use (batch-sender.ts), and turns
 * for free queries (limits.concurrentQueries). Creating a connection sends nothing and never fails.
 */
import { systemLimits, type SystemLimits } from '../../definitions/system-limits.js';
import type { SystemDefinition } from '../../definitions/types.js';
import type {
  Connection,
  DiscoveredObject,
  ObjectDescription,
  QueryRequest,
  QueryResult,
  ReadRequest,
  RecordData,
  WriteRequest,
  WriteResult,
} from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { queryBusyError } from '../limit-errors.js';
import { QuerySlots } from '../query-slots.js';
import { describeObject } from '../records/describe-object.js';
import { objectNamed, objectOrError } from '../records/object-model.js';
import { writeRefusal } from '../records/write-checks.js';
import { WebClient } from '../web/index.js';
import { BatchSender, type BatchSetting } from './batch/batch-sender.js';
import { discoverObjects } from './discover.js';
import { buildODataObjects, type ODataObject } from './object-model.js';
import { runQuery } from './query.js';
import { countRecords, readRecords, type ReadScope } from './read-records.js';
import { ServiceMetadata } from './service-metadata.js';
import { DEFAULT_MAX_PAGE_SIZE } from './spec.js';
import { writeMany } from './write-many.js';
import { prepareWrite } from './write-payload.js';
import { writeRecord, type WriteScope } from './write-record.js';

export class ODataConnection implements Connection {
  private readonly objects: ReadonlyMap<string, ODataObject>;
  private readonly web: WebClient;
  private readonly metadata: ServiceMetadata;
  private readonly batch: BatchSender;
  private readonly limits: SystemLimits;
  private readonly querySlots: QuerySlots;
  private readonly maxPageSize: number;
  private closed = false;

  constructor(private readonly system: SystemDefinition) {
    this.objects = buildODataObjects(system);
    this.web = WebClient.forSystem(system, 'odata');
    this.metadata = new ServiceMetadata(this.web, system.id);
    this.batch = new BatchSender(this.web, (system.connection.batch as BatchSetting | undefined) ?? 'auto');
    this.maxPageSize = (system.connection.maxPageSize as number | undefined) ?? DEFAULT_MAX_PAGE_SIZE;
    this.limits = systemLimits(system);
    this.querySlots = new QuerySlots({
      size: this.limits.concurrentQueries,
      waitMs: this.limits.queryWaitMs,
      holdMs: this.limits.statementTimeoutMs,
      busy: (running, retryAfter) => queryBusyError(system.id, running, this.limits, retryAfter),
    });
  }

  private object(name: string): ODataObject {
    if (this.closed) {
      throw new ConnectorError(
        'unavailable',
        `the connection to system '${this.system.id}' was closed (its definition changed or the runtime is stopping); retry`,
        { details: { system: this.system.id, reason: 'closed' } },
      );
    }
    return objectNamed(this.objects, this.system.id, name);
  }

  private async readScope(name: string): Promise<ReadScope> {
    const bound = await this.metadata.object(this.object(name));
    return { web: this.web, bound, maxPageSize: this.maxPageSize };
  }

  private async writeScope(object: ODataObject): Promise<WriteScope> {
    return { web: this.web, bound: await this.metadata.object(object), batch: this.batch };
  }

  describe(object: string): ObjectDescription {
    return describeObject(this.object(object));
  }

  async *read(object: string, request: ReadRequest = {}): AsyncIterable<RecordData[]> {
    try {
      yield* readRecords(await this.readScope(object), request);
    } catch (error) {
      throw this.unreadable(error);
    }
  }

  async count(object: string, request: Pick<ReadRequest, 'filter' | 'placeholders' | 'signal'> = {}): Promise<number> {
    return countRecords(await this.readScope(object), request).catch((error: unknown) => Promise.reject(this.unreadable(error)));
  }

  /**
   * A TypeError from reading an answer of a shape no check foresaw (a null where an entity was
   * due) is the service's failure, in our words: the raw error, its stack and what the service
   * sent stay in `cause`, for the log.
   */
  private unreadable(error: unknown): unknown {
    if (!(error instanceof TypeError)) return error;
    return new ConnectorError('unavailable', `system '${this.system.id}' answered with something the odata connector cannot read`, {
      cause: error,
      details: { system: this.system.id },
    });
  }

  query(request: QueryRequest): Promise<QueryResult> {
    return runQuery(
      {
        web: this.web,
        systemId: this.system.id,
        limits: this.limits,
        slots: this.querySlots,
        model: () => this.metadata.get(),
      },
      request,
    ).catch((error: unknown) => Promise.reject(this.unreadable(error)));
  }

  async write(objectName: string, request: WriteRequest): Promise<WriteResult> {
    const object = this.object(objectName);
    const prepared = prepareWrite(object, request);
    return writeRecord(await this.writeScope(object), prepared).catch((error: unknown) => Promise.reject(this.unreadable(error)));
  }

  async writeMany(objectName: string, requests: readonly WriteRequest[]): Promise<Array<WriteResult | ConnectorError>> {
    if (requests.length === 0) return [];
    let object: ODataObject;
    try {
      object = this.object(objectName);
    } catch (error) {
      // An undeclared object is every request's failure, as `write` would answer each of them.
      if (error instanceof ConnectorError) return requests.map(() => error);
      throw error;
    }
    const prepared = requests.map((request) => {
      try {
        return prepareWrite(object, request);
      } catch (error) {
        if (error instanceof ConnectorError) return error;
        throw error;
      }
    });
    if (prepared.every((write) => write instanceof ConnectorError)) return prepared as ConnectorError[];
    return writeMany(await this.writeScope(object), prepared).catch((error: unknown) => Promise.reject(this.unreadable(error)));
  }

  /** Before the service is asked: its $metadata is not needed to check values against the declared fields. */
  checkWrite(objectName: string, request: WriteRequest, action: 'create' | 'update'): ConnectorError | undefined {
    const object = objectOrError(this.objects, this.system.id, objectName);
    return object instanceof ConnectorError ? object : writeRefusal(object, request, action);
  }

  /** The service document answers (one try, no retries): the service is there and takes our credentials. */
  check(): Promise<void> {
    return this.web.check('');
  }

  async discover(): Promise<DiscoveredObject[]> {
    return discoverObjects(await this.metadata.get().catch((error: unknown) => Promise.reject(this.unreadable(error))));
  }

  /** Refuses new operations; requests under way finish (nothing is held open between requests). */
  async close(): Promise<void> {
    this.closed = true;
  }
}
