/**
 * TypeScript shapes of the five definition kinds, as they are after loading (substituted,
 * schema-checked, defaults applied). The JSON Schemas in ./schemas are the source of truth for
 * what users may write; these types mirror them for the code that reads a snapshot.
 */

export type FieldType = 'String' | 'Integer' | 'Number' | 'Boolean' | 'Date' | 'DateTime' | 'Json';
export const fieldTypes: readonly FieldType[] = Object.freeze(['String', 'Integer', 'Number', 'Boolean', 'Date', 'DateTime', 'Json']);

export interface FieldDefinition {
  type: FieldType;
  required?: boolean;
  readOnly?: boolean;
  maxLength?: number;
  description?: string;
}

export interface GroupDefinition {
  description?: string;
  types: string[];
  fields: Record<string, FieldDefinition>;
  /** Connector-specific options (e.g. sql: table, foreignKey, typeField). */
  [option: string]: unknown;
}

export interface ObjectDefinition {
  description?: string;
  key: string[];
  fields: Record<string, FieldDefinition>;
  readOnly?: boolean;
  groups?: Record<string, GroupDefinition>;
  /** Connector-specific options (e.g. sql: table). */
  [option: string]: unknown;
}

export interface QueryDefinition {
  description?: string;
  statement: string;
  countStatement?: string;
  columns: Array<{ name: string; type: FieldType }>;
}

/** A System's `limits:` (system.schema.json has the defaults; system-limits.ts reads them as numbers). */
export interface SystemLimitsDefinition {
  /** Longest statement (free query with its count, object read, count), as a duration. Default 30s. */
  statementTimeout?: string;
  /** Most rows one free query answers. Default 100000. */
  queryRows?: number;
  /** Most bytes (as JSON) of one free query's rows, as a size. Default 32mib. */
  queryBytes?: string | number;
  /** Free queries running at once. Default 4. */
  concurrentQueries?: number;
  /** How long a free query waits for a turn, as a duration. Default 5s. */
  queryWait?: string;
}

export interface SystemDefinition {
  kind: 'System';
  id: string;
  name?: string;
  description?: string;
  connector: string;
  connection: Record<string, unknown>;
  readOnly?: boolean;
  /** Absent only in definitions built in code; loading fills in every default. */
  limits?: SystemLimitsDefinition;
  objects: Record<string, ObjectDefinition>;
  queries: Record<string, QueryDefinition>;
}

export interface Schedule {
  every?: string;
  cron?: string;
  timezone?: string;
}

/**
 * How many runs of a sync or flow may go on at once across all processes (common.schema.json
 * $defs/concurrency; the schema fills in limit 1 and onLimit wait).
 */
export interface ConcurrencyPolicy {
  limit: number;
  onLimit: 'wait' | 'skip' | 'fail';
  /** Syncs and flows naming one group share its limit. */
  group?: string;
}

/** A sync's `source.cursor`: a DateTime, Date or Integer field of the source, and how far back a timestamp run reads again. */
export interface SyncCursorDefinition {
  field: string;
  /** A duration; timestamps only. */
  lookBack?: string;
}

export interface SyncDefinition {
  kind: 'Sync';
  id: string;
  name?: string;
  description?: string;
  source: {
    system?: string;
    object?: string;
    query?: string;
    recordStore?: boolean;
    where?: string;
    order?: string;
    /** Incremental runs (runtime/sync/sync-cursor.ts): the field whose high-water mark each run keeps. */
    cursor?: SyncCursorDefinition;
  };
  target: { system: string; object: string };
  precondition?: string;
  mapping: string;
  match?: {
    where: string;
    onNoMatch: 'create' | 'skip';
    onMatch: 'update' | 'skip';
    onMultipleMatches: 'fail' | 'updateFirst' | 'updateAll' | 'skip';
  };
  schedule?: Schedule;
  concurrency: ConcurrencyPolicy;
  retries: { max: number; backoff: string; maxBackoff: string };
  batchSize: number;
  timeout: string;
  maxErrors: number;
  webhookTypes: Array<'read' | 'readQuery' | 'write'>;
}

export interface FlowDefinition {
  kind: 'Flow';
  id: string;
  name?: string;
  description?: string;
  steps: Array<{ sync?: string; flow?: string; name?: string; continueOnError: boolean }>;
  concurrency: ConcurrencyPolicy;
  schedule?: Schedule;
}

export type WebhookAction =
  | 'startSync'
  | 'readWithSync'
  | 'readQueryWithSync'
  | 'saveWithSync'
  | 'readWithSystem'
  | 'readQueryWithSystem'
  | 'saveWithSystem';

export interface WebhookDefinition {
  kind: 'Webhook';
  id: string;
  name?: string;
  description?: string;
  active: boolean;
  secret?: string;
  condition?: string;
  logPayload: boolean;
  logRetention: string;
  /** More names whose values the call log never keeps, beyond the built-in rule. */
  logRedact?: string[];
  challenge?: { profile: 'x-crc' | 'zoom' | 'slack' | 'meta'; secret?: string; verifyToken?: string };
  signature?: {
    profile: 'github' | 'stripe' | 'slack' | 'zoom' | 'hmac';
    secret: string;
    header?: string;
    prefix?: string;
    encoding: 'hex' | 'base64';
    algorithm: 'sha256' | 'sha512' | 'sha1';
    timestampHeader?: string;
    tolerance: string;
  };
  action: WebhookAction;
  sync?: string;
  flow?: string;
  system?: string;
  object?: string;
  query?: string;
  redirectUrl?: string;
  recordStore: boolean;
  search?: string;
  order?: string;
  firstOnly: boolean;
  queryFilter?: string;
  paging?: {
    pageSizeParam: string;
    offsetParam: string;
    filterParam?: string;
    defaultPageSize: number;
    maxPageSize: number;
  };
  targetSearch?: string;
  onNoMatch: 'skip' | 'create';
  onMatch: 'skip' | 'update';
  requestSchema?: Record<string, unknown>;
  responseSchema?: Record<string, unknown>;
  readMapping?: string;
  writeMapping?: string;
  resultMapping?: string;
  idempotency?: { header: string; bodyPath?: string; window: string };
  rateLimit?: { requests: number; per: string };
  cors?: { origins: string[] };
}

export type ApiScope = 'queue:read' | 'queue:write' | 'systems:read' | 'systems:write' | 'systems:query' | 'console';

export interface ApiClientDefinition {
  kind: 'ApiClient';
  id: string;
  name?: string;
  description?: string;
  /** Never kept after loading: the snapshot holds only `tokenSha256`. */
  token?: string;
  tokenSha256: string;
  scopes: ApiScope[];
  systems?: string[];
  syncs?: string[];
}

export type Definition = SystemDefinition | SyncDefinition | FlowDefinition | WebhookDefinition | ApiClientDefinition;
export type DefinitionKind = Definition['kind'];
export const definitionKinds: readonly DefinitionKind[] = Object.freeze(['System', 'Sync', 'Webhook', 'Flow', 'ApiClient']);
