/**
 * The shapes of the API answers the console reads, named after the OpenAPI schemas they mirror
 * (GET /api/openapi.json, components.schemas, or the inline schema of the route named below).
 * Written by hand for now; test/unit/console/api-types.test.ts reads this file with the
 * TypeScript compiler and checks every interface's properties, and which of them are optional,
 * against the schema of the same name, so a change to the API that the console does not follow
 * fails the tests.
 */

export type QueueStatus = 'Pending' | 'InProgress' | 'Complete' | 'Failed';
export type StartType = 'AdHoc' | 'manual' | 'repeat' | 'planned' | 'Single';

/** RFC 9457 problem details: every error answer of the API. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  requestId?: string;
  errors?: Array<{ path: string; message: string }>;
}

/** QueueItem.Statistics: records of the last attempt. */
export interface QueueStatistics {
  Read: number;
  Created: number;
  Updated: number;
  Skipped: number;
  Failed: number;
}

/** QueueItem.Errors[]: a record's error (with its SourceId) or the whole attempt's. */
export interface QueueError {
  Message: string;
  SourceId?: string;
  At: string;
}

/** GET /api/GetAction/{queueId}, and the answers of cancel, retry and AddAction. */
export interface QueueItem {
  ID: string;
  StartType: StartType;
  ProcessId: string;
  CreatedDate: string;
  Status: QueueStatus;
  SourceId: string | null;
  WhereClause: string | null;
  StartedDate: string | null;
  FinishedDate: string | null;
  Attempts: number;
  Statistics: QueueStatistics;
  Errors: QueueError[];
  RetryOf: string | null;
}

/** An item of GET /api/queue: ErrorCount in place of Errors. */
export interface QueueListItem {
  ID: string;
  StartType: StartType;
  ProcessId: string;
  CreatedDate: string;
  Status: QueueStatus;
  SourceId: string | null;
  WhereClause: string | null;
  StartedDate: string | null;
  FinishedDate: string | null;
  Attempts: number;
  Statistics: QueueStatistics;
  ErrorCount: number;
  RetryOf: string | null;
}

/** GET /api/queue: one page, newest first; `next` is the cursor of the following page. */
export interface QueuePage {
  items: QueueListItem[];
  next: string | null;
}

/** POST /api/AddAction request body. */
export interface AddActionBody {
  ProcessId: string;
  StartType: StartType;
  SourceId?: string | null;
  WhereClause?: string | null;
  ActionParams?: Array<{ Name: string; Value: string }> | null;
}

export interface ReloadProblem {
  file: string;
  line: number;
  column: number;
  kind?: string;
  id?: string;
  code: string;
  message: string;
  severity: 'error' | 'warning';
}

export interface LastReload {
  at: string;
  ok: boolean;
  durationMs: number;
  problems: ReloadProblem[];
  hiddenProblems: number;
}

export interface Schedule {
  id: string;
  kind: 'Sync' | 'Flow';
  name?: string;
  every?: string;
  cron?: string;
  timezone?: string;
  startType: 'repeat' | 'planned';
  active: boolean;
  nextRun: string | null;
  lastRun: { slotAt: string; itemId: string; status: QueueStatus | null } | null;
}

/** GET /api/console/overview: daemons.daemons[]. */
export interface Daemon {
  id: string;
  host: string;
  pid: number;
  version: string;
  command: 'serve' | 'daemon';
  concurrency: number;
  running: number;
  startedAt: string;
  lastHeartbeatAt: string;
}

/** GET /api/console/overview. */
export interface ConsoleOverview {
  version: string;
  role: 'api' | 'api+daemon';
  queue: Record<QueueStatus, number>;
  daemons: { count: number; daemons: Daemon[] };
  schedules: Schedule[];
  lastReload: LastReload;
}

export type DefinitionKind = 'System' | 'Sync' | 'Flow' | 'Webhook' | 'ApiClient';

/** GET /api/definitions: definitions.{kind}[], a loaded definition and where it is written. */
export interface DefinitionSummary {
  id: string;
  name?: string;
  file: string;
  line: number;
  column: number;
}

/** GET /api/definitions. */
export interface DefinitionsAnswer {
  digest: string;
  loadedAt: string;
  definitions: Record<DefinitionKind, DefinitionSummary[]>;
  lastReload: LastReload;
}

export type FieldType = 'String' | 'Integer' | 'Number' | 'Boolean' | 'Date' | 'DateTime' | 'Json';

/** A field of an object, as RunConnectionGetData describes it. */
export interface FieldDescription {
  name: string;
  type: FieldType;
  required: boolean;
  readOnly: boolean;
}

/** A typed group of an object (addresses by type), as RunConnectionGetData describes it. */
export interface GroupDescription {
  name: string;
  types: string[];
  fields: FieldDescription[];
}

/** POST /api/RunConnectionGetData/{system}/{object}: metadata, the total matching and the records. */
export interface ReadAnswer {
  system?: string;
  object?: string;
  key?: string[];
  fields: FieldDescription[];
  groups: GroupDescription[];
  total: number;
  records: Array<Record<string, unknown>>;
}

/** The read parameters of RunConnectionGetData: GETDATA_WHERE, _ORDER, _LIMIT, _SKIP. */
export type ReadParameters = Array<{ name: 'GETDATA_WHERE' | 'GETDATA_ORDER' | 'GETDATA_LIMIT' | 'GETDATA_SKIP'; value: string }>;

/** A column of a free query: its name and the type each row holds it as. */
export interface QueryColumn {
  Name: string;
  ColumnType: FieldType;
}

/** POST /api/RunConnectionGetQueryData/{system} request body. */
export interface QueryBody {
  columns: QueryColumn[];
  Statement: string;
  CountStatement?: string;
  Limit?: number;
  Skip?: number;
}

/** POST /api/RunConnectionGetQueryData/{system}. */
export interface QueryAnswer {
  columns: QueryColumn[];
  records: Array<Record<string, unknown>>;
  total?: number;
}

/** GET /api/webhooks: webhooks[] (components.schemas.WebhookSummary). */
export interface WebhookSummary {
  id: string;
  name?: string;
  url: string;
  action: string;
  sync?: string;
  flow?: string;
  system?: string;
  object?: string;
  query?: string;
  active: boolean;
  hasSecret: boolean;
  signature: string | null;
  pinnedEntries: number;
  file: string;
  line: number;
}

/** A message of a webhook call's ticker (components.schemas.TickerMessage). */
export interface TickerMessage {
  at: string;
  kind: string;
  message: string;
  data?: Record<string, unknown>;
}

/** GET /api/console/webhooks/{webhookId}/log: entries[] (components.schemas.WebhookLogSummary). */
export interface WebhookLogSummary {
  id: string;
  webhookId: string;
  at: string;
  method: string;
  status: number;
  durationMs: number;
  queueItemId: string | null;
  origin: 'test' | 'replay' | null;
  replayOf: string | null;
  requestId: string | null;
  pinned: boolean;
  hasPayload: boolean;
  replayable: boolean;
}

/** WebhookLogEntry.payload: what the call sent, credentials redacted. */
export interface WebhookPayload {
  headers: Record<string, string | string[]>;
  query: Record<string, string | string[]>;
  data?: unknown;
  body?: string;
  bodyEncoding?: 'utf8' | 'base64';
  truncated?: { bytes: number; limit: number; preview: string };
  note?: string;
  redacted?: string[];
}

/** GET /api/console/webhooks/{webhookId}/log/{entryId} (components.schemas.WebhookLogEntry). */
export interface WebhookLogEntry {
  id: string;
  webhookId: string;
  at: string;
  method: string;
  status: number;
  durationMs: number;
  queueItemId: string | null;
  origin: 'test' | 'replay' | null;
  replayOf: string | null;
  requestId: string | null;
  pinned: boolean;
  hasPayload: boolean;
  replayable: boolean;
  ticker: TickerMessage[];
  payload: WebhookPayload | null;
  response: { body?: unknown; truncated?: { bytes: number; limit: number; preview: string } } | null;
}

/** GET /api/console/webhooks/{webhookId}/log. */
export interface WebhookLogPage {
  entries: WebhookLogSummary[];
  next: string | null;
}

/** What a webhook answered (components.schemas.WebhookResponse): the raw body as text. */
export interface WebhookResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** POST /api/console/webhooks/{webhookId}/log/{entryId}/replay. */
export interface WebhookReplay {
  entryId: string;
  replayOf: string;
  response: WebhookResponse;
}
