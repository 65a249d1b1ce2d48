/**
 * A Connection to one System of the `sql` connector: the object model built from the definition,
 * its limits, and Knex pools created on first use — one for writes, one for reads and counts (whose
 * statements stop at limits.statementTimeout; SQLite in-memory databases read on the write pool,
 * engines/sqlite.ts says why), one (read-only at the session level) for free queries, which take turns
 * (limits.concurrentQueries). Nothing touches the database until an operation needs it, so
 * creating a connection never fails and loads no driver.
 */
import knexFactory, { type Knex } from 'knex';
import { systemLimits, type SystemLimits } from '../../definitions/system-limits.js';
import type { SystemDefinition } from '../../definitions/types.js';
import type {
  Connection,
  ConnectionContext,
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
import { checkDatabase } from './check.js';
import { toConnectorError } from './database-errors.js';
import { describeObject } from '../records/describe-object.js';
import { discoverObjects } from './discover.js';
import { engineOfClient, type Engine, type PoolPurpose } from './engines/index.js';
import { buildObjects, objectNamed, objectOrError, type SqlObject } from './object-model.js';
import { runQuery } from './query.js';
import { countRecords, readPages } from './read.js';
import { checkSqlId, type ObjectScope } from './record-query.js';
import { sqlWriteRefusal } from './prepare-write.js';
import type { Dialect } from './sql-dialect.js';
import { TableCatalog } from './unique-keys.js';
import { writeMany } from './write-many.js';
import type { WriteScope } from './write-transaction.js';
import { writeRecord } from './write.js';

export class SqlConnection implements Connection {
  readonly engine: Engine;
  readonly dialect: Dialect;
  /** writeMany looks matches up a chunk at a time (find-records.ts). */
  readonly findsMatchesInBatch = true;
  /** Both compare a record found with the values of a `leaveUnchanged` write (unchanged-row.ts). */
  readonly leavesUnchanged = true;
  private readonly objects: ReadonlyMap<string, SqlObject>;
  private readonly pools = new Map<PoolPurpose, Knex>();
  private closed = false;
  private readonly ownReadPool: boolean;
  private readonly limits: SystemLimits;
  private readonly querySlots: QuerySlots;
  /** The unique keys and lock scopes of the tables written (not needed on SQLite). */
  private readonly tables: TableCatalog | undefined;

  constructor(
    private readonly system: SystemDefinition,
    private readonly context: ConnectionContext,
  ) {
    this.engine = engineOfClient(system.connection.client);
    this.dialect = this.engine.name;
    this.objects = buildObjects(system);
    this.ownReadPool = this.engine.hasOwnReadPool(system.connection, context);
    this.limits = systemLimits(system);
    const size = this.engine.queryConcurrency(this.limits);
    this.querySlots = new QuerySlots({
      size,
      waitMs: this.limits.queryWaitMs,
      holdMs: this.limits.statementTimeoutMs,
      busy: (running, retryAfter) => queryBusyError(system.id, running, this.limits, retryAfter),
    });
    this.tables = this.dialect === 'sqlite' ? undefined : new TableCatalog(() => this.pool('data'), this.dialect);
  }

  /** The pool of `purpose`, created on first use. */
  private pool(purpose: PoolPurpose): Knex {
    if (this.closed) {
      throw new ConnectorError(
        'unavailable',
        `the connection to system '${this.system.id}' was closed (its definition changed or the runtime is stopping); retry`,
        {
          details: { system: this.system.id, reason: 'closed' },
        },
      );
    }
    if (purpose === 'read' && !this.ownReadPool) return this.pool('data');
    const existing = this.pools.get(purpose);
    if (existing !== undefined) return existing;
    this.engine.assertReachable(this.system.connection, this.context, this.system.id);
    let created: Knex;
    try {
      created = knexFactory(this.engine.systemConfig(this.system.connection, this.context, purpose, this.limits));
    } catch (error) {
      throw toConnectorError(error, { systemId: this.system.id, action: 'opening the database' });
    }
    this.pools.set(purpose, created);
    return created;
  }

  private scope(objectName: string, purpose: 'data' | 'read'): ObjectScope {
    const object = objectNamed(this.objects, this.system.id, objectName);
    return { knex: this.pool(purpose), engine: this.engine, object, ...(purpose === 'read' ? { limits: this.limits } : {}) };
  }

  private writeScope(objectName: string): WriteScope {
    return { ...this.scope(objectName, 'data'), tables: this.tables };
  }

  describe(object: string): ObjectDescription {
    return describeObject(objectNamed(this.objects, this.system.id, object));
  }

  async *read(object: string, request: ReadRequest = {}): AsyncIterable<RecordData[]> {
    yield* readPages(this.scope(object, 'read'), request);
  }

  count(object: string, request: Pick<ReadRequest, 'filter' | 'placeholders' | 'signal'> = {}): Promise<number> {
    return Promise.resolve().then(() => countRecords(this.scope(object, 'read'), request));
  }

  query(request: QueryRequest): Promise<QueryResult> {
    return Promise.resolve().then(() =>
      runQuery(
        { knex: this.pool('query'), engine: this.engine, systemId: this.system.id, limits: this.limits, slots: this.querySlots },
        request,
      ),
    );
  }

  write(object: string, request: WriteRequest): Promise<WriteResult> {
    return Promise.resolve().then(() => writeRecord(this.writeScope(object), request));
  }

  writeMany(object: string, requests: readonly WriteRequest[]): Promise<Array<WriteResult | ConnectorError>> {
    if (requests.length === 0) return Promise.resolve([]);
    return Promise.resolve().then(() => {
      let scope: WriteScope;
      try {
        scope = this.writeScope(object);
      } catch (error) {
        // An undeclared object is every request's failure, as `write` would answer each of them.
        if (error instanceof ConnectorError && error.code === 'unknown-object') return requests.map(() => error);
        throw error;
      }
      return writeMany(scope, requests);
    });
  }

  checkWrite(objectName: string, request: WriteRequest, action: 'create' | 'update'): ConnectorError | undefined {
    const object = objectOrError(this.objects, this.system.id, objectName);
    return object instanceof ConnectorError ? object : sqlWriteRefusal(this.engine, object, request, action);
  }

  checkId(objectName: string, id: Readonly<RecordData>): ConnectorError | undefined {
    const object = objectOrError(this.objects, this.system.id, objectName);
    if (object instanceof ConnectorError) return object;
    try {
      checkSqlId(this.engine, object, id);
      return undefined;
    } catch (error) {
      if (error instanceof ConnectorError) return error;
      throw error;
    }
  }

  check(): Promise<void> {
    return Promise.resolve().then(() => checkDatabase(() => this.pool('data'), this.system.id));
  }

  async discover(): Promise<DiscoveredObject[]> {
    const knex = this.pool('data');
    try {
      return await discoverObjects(knex, this.dialect);
    } catch (error) {
      throw toConnectorError(error, { systemId: this.system.id, action: 'listing the tables' });
    }
  }

  /** Closes the pools after the statements running on them have finished. */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.destroy()));
  }
}
