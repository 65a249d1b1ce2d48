/**
 * The runtime side of a connector: a Connection to one System. The HTTP routes, the sync engine
 * and webhooks use only this interface; no code outside a connector's folder knows a connector by
 * name.
 *
 * Records are plain objects: the object's fields as properties, and each typed object group as a
 * property holding one entry per type — `{ id: 1, name: "Ada", addresses: { main: { city:
 * "London" }, invoice: { city: "Leeds" } } }`. Types absent for a record are absent.
 */
import type { Expression } from '../definitions/expression/index.js';
import type { OrderTerm } from '../definitions/order/parse-order.js';
import type { FieldType, SystemDefinition } from '../definitions/types.js';
import type { ConnectorError } from './connector-error.js';
import type { ConnectorSpec } from '../definitions/connector-spec.js';

export type RecordData = Record<string, unknown>;

/** Resolves `#a.b#` placeholders of a filter to values; the values are always bound, never spliced. */
export type PlaceholderValues = (path: readonly string[]) => unknown;

export interface ReadRequest {
  /** Filter in the expression language; its placeholders are resolved with `placeholders`. */
  filter?: Expression;
  placeholders?: PlaceholderValues;
  /** Key values of one record (GETDATA_ID, GetDataObject): field name → value. */
  id?: Readonly<Record<string, unknown>>;
  order?: readonly OrderTerm[];
  /**
   * Without an `order`: the field whose values from a mark on the filter selects (a sync's cursor
   * run). A connector that pages by seeking may read in the order of this field, then the key, so
   * that an index on the field finds the few records past the mark instead of a walk over every
   * record; others ignore it. The caller takes the records in whatever order they come.
   */
  rangeField?: string;
  /** Most records to return in all (GETDATA_LIMIT). */
  limit?: number;
  /** Records to pass over first (GETDATA_SKIP). */
  skip?: number;
  /** Records per page of the stream; the connector's default when absent. */
  pageSize?: number;
  /** Cancels a long read (a request that went away, a sync that is stopped). */
  signal?: AbortSignal;
  /**
   * Filled by a connector that has `settle` with what this read consumed to its end (a file read
   * to its last record), so that the caller can settle it once it has used every record. Only a
   * sync run passes one: plain reads settle nothing.
   */
  receipt?: ReadReceipt;
}

/**
 * What a read consumed to its end, in the connector's own terms. The caller keeps it and hands it
 * back to `settle` without reading it.
 */
export interface ReadReceipt {
  readonly completed: Array<{
    /** The connector's name for what was read (the file connector: a file, relative to its directory). */
    source: string;
    /** What tells a later change of it (a file's size, modification time and inode): settle leaves a changed source alone. */
    version: string;
  }>;
}

export interface QueryRequest {
  /** The statement in the system's language; `#FlowFilter#` is replaced by `filter`, compiled and bound. */
  statement: string;
  countStatement?: string;
  /**
   * The result columns and their types (a named query's `columns`, the request's `columns`): each
   * row then holds exactly these, converted to their types. Absent: rows as the database returns them.
   */
  columns?: ReadonlyArray<{ name: string; type: FieldType }>;
  filter?: Expression;
  placeholders?: PlaceholderValues;
  limit?: number;
  skip?: number;
  signal?: AbortSignal;
}

export interface QueryResult {
  rows: RecordData[];
  /** From the count statement, when one was given. */
  total?: number;
}

export interface WriteRequest {
  /** Field values to set. */
  values: Readonly<RecordData>;
  /** Group entries to set, by group then type: `{ addresses: { main: { city: "Paris" } } }`. */
  groups?: Readonly<Record<string, Readonly<Record<string, Readonly<RecordData>>>>>;
  /**
   * Fields identifying the record to update. Absent: the object's key, taken from `values` when
   * they hold it. No record found by them: one is created. Finding and creating are atomic per
   * match where the system can make them so: two concurrent writes with the same match create
   * one record, and the later one finds it.
   */
  match?: Readonly<RecordData>;
  /** What to do with the record the match finds: update it (the default), or leave it as it is. */
  onMatch?: 'update' | 'skip';
  /**
   * Only where the connection `leavesUnchanged`: a record found that already holds every value the
   * write sets, each compared as its field's type compares values (7 and '7' for an Integer, text
   * exactly), is left as it is and answered `unchanged`. A write with group entries is made.
   */
  leaveUnchanged?: boolean;
}

export interface WriteResult {
  /**
   * `skipped`: a record was found and left as it is (`onMatch: 'skip'`); `unchanged`: one was found
   * that already held the values (`leaveUnchanged`).
   */
  action: 'created' | 'updated' | 'skipped' | 'unchanged';
  /** Key of the written (or found) record (including generated keys). */
  key: RecordData;
}

export interface FieldDescription {
  name: string;
  type: FieldType;
  required: boolean;
  readOnly: boolean;
}

export interface ObjectDescription {
  name: string;
  key: string[];
  fields: FieldDescription[];
  groups: Array<{ name: string; types: string[]; fields: FieldDescription[] }>;
}

export interface DiscoveredObject {
  /** The system's own name for it (a table, an entity set, a file); the object is named after it. */
  name: string;
  /**
   * The connector-specific options an object definition needs to reach it, as they are written
   * under the object (`{ table: customers }`, `{ entitySet: Customers }`).
   */
  options: Record<string, unknown>;
  fields: Array<{ name: string; type: FieldType; nullable: boolean }>;
  /** Empty when the system names no key: the definition must add one to read by id or write. */
  key: string[];
  /** What the connector could not turn into a definition, said as comments above the object. */
  notes?: string[];
}

export interface Connection {
  /** Fields, types and groups of an object, as declared for the system. */
  describe(object: string): ObjectDescription;
  /** Records of an object as a stream of pages, never the whole object in memory. */
  read(object: string, request?: ReadRequest): AsyncIterable<RecordData[]>;
  count(object: string, request?: Pick<ReadRequest, 'filter' | 'placeholders' | 'signal'>): Promise<number>;
  /**
   * Optional: false when `count` with this filter would read the records themselves (a REST API
   * that tells no total pages through them all), so a count only for show — `syncline run`'s
   * progress bar — is better left out. Absent: counting is the system's own, cheap operation.
   */
  countsCheaply?(object: string, request?: Pick<ReadRequest, 'filter'>): boolean;
  /** A read-only statement: the database itself refuses writes where it can. */
  query(request: QueryRequest): Promise<QueryResult>;
  /** Creates or updates one record with its groups, atomically where the system has transactions. */
  write(object: string, request: WriteRequest): Promise<WriteResult>;
  /**
   * Several writes of one object at once, each with exactly the meaning of `write`, in one
   * transaction where the system has them. The answer holds, in request order, the WriteResult of
   * each write made and the ConnectorError of each write not made: one refused on its own (a
   * failing record is rolled back alone and the others are kept), or one not made because the
   * system failed partway (unreachable, an answer that does not say what happened) — its error is
   * then the system's ('unavailable', 'timeout'…), and the writes made before stay made and are
   * answered as such. Rejects only when nothing was written: the caller can then treat the whole
   * call as not done.
   */
  writeMany(object: string, requests: readonly WriteRequest[]): Promise<Array<WriteResult | ConnectorError>>;
  /**
   * Optional: true when `writeMany` looks the matches of its writes up a chunk at a time (one
   * statement for many), inside the transaction that writes them. A caller that would search the
   * same matches first only to pass them on (the sync engine's batched match search) may then leave
   * the search to the writes. Absent: each write looks its match up on its own.
   */
  readonly findsMatchesInBatch?: boolean;
  /**
   * Optional: true when `write` and `writeMany` honour WriteRequest.leaveUnchanged, comparing the
   * record they found inside the transaction that would write it — so a caller need not read the
   * records first to leave out the writes that change nothing.
   */
  readonly leavesUnchanged?: boolean;
  /**
   * The refusal `write` would answer this request with before asking the system anything, or
   * undefined when the write would go on to the system: an object that takes no writes, undeclared
   * fields and groups, values that do not fit their types or what the system can store (NUL in
   * PostgreSQL text, a character the file's encoding lacks), read-only fields set; and for a
   * `create` — what the caller expects once no record is found — what a new record needs (required
   * fields, no read-only match value). Reads and writes nothing, so a dry run can say which records
   * would fail. What only the system knows — unique indexes, foreign keys, an API's own validation —
   * is not known here.
   */
  checkWrite(object: string, request: WriteRequest, action: 'create' | 'update'): ConnectorError | undefined;
  /**
   * Optional: the error a read by `id` would answer before asking the system — a key value its
   * type, or the system, cannot hold (an Integer past 64 bits in SQL) — or undefined. Reads
   * nothing. Without it, a caller checks the id against the declared types alone.
   */
  checkId?(object: string, id: Readonly<RecordData>): ConnectorError | undefined;
  /** Resolves when the system can be reached; rejects with a ConnectorError saying why not. */
  check(): Promise<void>;
  /** Candidate objects of the system (tables, collections) with their fields. */
  discover(): Promise<DiscoveredObject[]>;
  /**
   * Optional: done with what a read consumed (its `receipt`), for systems where reading leaves
   * something to tidy — the file connector moves the files of a drop folder to their archive. The
   * sync engine calls it after a run that read its source whole (no WhereClause, no source id)
   * and ended Complete with no failed record; never after a plain read. A source changed since it
   * was read is left alone, to be read again.
   */
  settle?(object: string, receipt: ReadReceipt): Promise<void>;
  close(): Promise<void>;
}

export interface ConnectionContext {
  /**
   * Directory relative paths in the connection settings (a SQLite `filename`) are resolved from:
   * the definitions directory, so definitions find their files whatever directory the process
   * was started in, as `${file:…}` does.
   */
  baseDirectory: string;
  /**
   * Directories a connector that reaches files (the file connector) may read and write in: each
   * System's directory must lie inside one of them. Absent: the definitions directory alone
   * (`baseDirectory`). `serve`, `daemon`, `run` and `discover` take them from SYNCLINE_FILE_ROOTS.
   */
  fileRoots?: readonly string[];
}

/** What a connector module exports: its spec, and a factory of connections. */
export interface ConnectorModule {
  readonly spec: ConnectorSpec;
  createConnection(system: SystemDefinition, context: ConnectionContext): Connection;
}
