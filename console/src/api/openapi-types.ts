/**
 * The API's types for the console, generated from the OpenAPI document the runtime publishes
 * (GET /api/openapi.json; runtime/http/openapi/) by `node bin/console-api-types.js`. Do not edit:
 * change the document and run the script again. test/unit/console/api-types.test.ts fails while
 * this file differs from what the script writes.
 */

/** RFC 9457 problem details. */
export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** The request path. */
  instance?: string;
  /** The request's id, as the X-Request-Id header answers it: the caller's when acceptable, else a new one. */
  requestId?: string;
  errors?: Array<{
    path: string;
    message: string;
  }>;
};

/** Read parameters: GETDATA_WHERE (filter, SQL-like or OData), GETDATA_ID, GETDATA_LIMIT, GETDATA_SKIP, GETDATA_ORDER; names and properties in any case. LIMIT, SKIP and ORDER apply where the system's connector has the capability limit, skip or order (422 naming it otherwise); a page (LIMIT or SKIP) of RunConnectionGetData, which answers the total, also needs count. */
export type ReadParameters = Array<{
  name: 'GETDATA_WHERE' | 'GETDATA_ID' | 'GETDATA_LIMIT' | 'GETDATA_SKIP' | 'GETDATA_ORDER';
  value: string | number;
}>;

export type FieldDescription = {
  name: string;
  type: 'String' | 'Integer' | 'Number' | 'Boolean' | 'Date' | 'DateTime' | 'Json';
  required: boolean;
  readOnly: boolean;
};

export type GroupDescription = {
  name: string;
  types: Array<string>;
  fields: Array<FieldDescription>;
};

export type Column = {
  /** A field, or group[type].field for a typed group entry, e.g. addresses[main].city. */
  name: string;
  /** The field's declared type (any case); it must match the definition. */
  columnType?: 'String' | 'Integer' | 'Number' | 'Boolean' | 'Date' | 'DateTime' | 'Json';
  /** The value to set; null clears the field. */
  value: unknown;
};

export type FullWrite = {
  /** Object name; must equal the {object_type} of the URL. */
  name?: string | null;
  columns: Array<{
    /** A field, or group[type].field for a typed group entry, e.g. addresses[main].city. */
    name: string;
    /** The field's declared type (any case); it must match the definition. */
    columnType?: 'String' | 'Integer' | 'Number' | 'Boolean' | 'Date' | 'DateTime' | 'Json';
    /** The value to set; null clears the field. */
    value: unknown;
  }>;
  /** Fields identifying the record to update; default the object key. */
  idcolumns?: Array<{
    /** A field, or group[type].field for a typed group entry, e.g. addresses[main].city. */
    name: string;
    /** The field's declared type (any case); it must match the definition. */
    columnType?: 'String' | 'Integer' | 'Number' | 'Boolean' | 'Date' | 'DateTime' | 'Json';
    /** The value to set; null clears the field. */
    value: unknown;
  }> | null;
};

export type WriteResult = {
  action: 'created' | 'updated';
  key: Record<string, unknown>;
};

export type QueryColumn = {
  /** A column of the result. */
  Name: string;
  /** Its type (any case): each row holds it converted to this type. */
  ColumnType: 'String' | 'Integer' | 'Number' | 'Boolean' | 'Date' | 'DateTime' | 'Json';
};

export type QueryBody = {
  columns: Array<{
    /** A column of the result. */
    Name: string;
    /** Its type (any case): each row holds it converted to this type. */
    ColumnType: 'String' | 'Integer' | 'Number' | 'Boolean' | 'Date' | 'DateTime' | 'Json';
  }>;
  /** Read-only statement in the system language. */
  Statement: string;
  /** Statement returning the total number of rows. */
  CountStatement?: string | null;
  /** Most rows to answer (a page); at most the system's limits.queryRows. */
  Limit?: number | string;
  /** Rows to pass over first; order the statement (ORDER BY) so pages do not overlap. */
  Skip?: number | string;
};

/** A queue item: the seed's five fields (ID, StartType, ProcessId, CreatedDate, Status), what the start asked for (SourceId, WhereClause), then its run. ActionParams are not shown: a webhook start passes its request data in them, and any client with queue:read may read the item. */
export type QueueItem = {
  /** For polling with GetAction. */
  ID: string;
  StartType: 'AdHoc' | 'manual' | 'repeat' | 'planned' | 'Single';
  /** The sync or flow the item runs. */
  ProcessId: string;
  CreatedDate: string;
  Status: 'Pending' | 'InProgress' | 'Complete' | 'Failed';
  /** The one source record the item runs (StartProcessAdHoc, AddAction with SourceId): its key value, or the GUID of the record-store entry a webhook start stored. null: the whole source. */
  SourceId: string | null;
  /** The filter the start added to the sync's own (AddAction, ExecuteProcess); null: none. */
  WhereClause: string | null;
  /** Start of the current or last attempt. */
  StartedDate: string | null;
  FinishedDate: string | null;
  Attempts: number;
  /** Records of the last attempt that reported any; zeros before. */
  Statistics: {
    Read: number;
    Created: number;
    Updated: number;
    Skipped: number;
    Failed: number;
    /** Of the Skipped: records whose matched target record already held the mapped values, so nothing was written. */
    Unchanged: number;
    /** A sync with a cursor (source.cursor): the range of the cursor field this attempt read. Values as mark text: ISO 8601 for DateTime, YYYY-MM-DD for Date, the digits of an Integer. Absent for a sync without a cursor, an ad-hoc start and a flow. */
    Cursor?: {
      /** The cursor field of the source. */
      Field: string;
      /** Where the read began: the previous mark less the look-back (records from it on; for an Integer key, records past it). null: a full run read every record. */
      From: string | number | null;
      /** The greatest cursor value read; null when no record was read. */
      To: string | null;
      /** The high-water mark after the attempt, where the next run begins: the greatest value read, held below the smallest value of a record that failed. null: none kept yet. */
      Mark: string | null;
    };
  };
  /** Errors of every attempt, oldest first: a record's (with its SourceId) or the whole attempt's. */
  Errors: Array<{
    Message: string;
    SourceId?: string;
    At: string;
  }>;
  /** The ID of the Failed item this one retries (POST /api/queue/{queueId}/retry); null when it is no retry. */
  RetryOf: string | null;
};

/** A queue item in the list: the fields of GetAction, with ErrorCount in place of the Errors list (GetAction has them). */
export type QueueListItem = {
  /** For polling with GetAction. */
  ID: string;
  StartType: 'AdHoc' | 'manual' | 'repeat' | 'planned' | 'Single';
  /** The sync or flow the item runs. */
  ProcessId: string;
  CreatedDate: string;
  Status: 'Pending' | 'InProgress' | 'Complete' | 'Failed';
  /** The one source record the item runs (StartProcessAdHoc, AddAction with SourceId): its key value, or the GUID of the record-store entry a webhook start stored. null: the whole source. */
  SourceId: string | null;
  /** The filter the start added to the sync's own (AddAction, ExecuteProcess); null: none. */
  WhereClause: string | null;
  /** Start of the current or last attempt. */
  StartedDate: string | null;
  FinishedDate: string | null;
  Attempts: number;
  /** Records of the last attempt that reported any; zeros before. */
  Statistics: {
    Read: number;
    Created: number;
    Updated: number;
    Skipped: number;
    Failed: number;
    /** Of the Skipped: records whose matched target record already held the mapped values, so nothing was written. */
    Unchanged: number;
    /** A sync with a cursor (source.cursor): the range of the cursor field this attempt read. Values as mark text: ISO 8601 for DateTime, YYYY-MM-DD for Date, the digits of an Integer. Absent for a sync without a cursor, an ad-hoc start and a flow. */
    Cursor?: {
      /** The cursor field of the source. */
      Field: string;
      /** Where the read began: the previous mark less the look-back (records from it on; for an Integer key, records past it). null: a full run read every record. */
      From: string | number | null;
      /** The greatest cursor value read; null when no record was read. */
      To: string | null;
      /** The high-water mark after the attempt, where the next run begins: the greatest value read, held below the smallest value of a record that failed. null: none kept yet. */
      Mark: string | null;
    };
  };
  /** How many errors the item has (of every attempt). */
  ErrorCount: number;
  /** The ID of the Failed item this one retries (POST /api/queue/{queueId}/retry); null when it is no retry. */
  RetryOf: string | null;
};

/** One page of the queue list, newest first. */
export type QueuePage = {
  items: Array<QueueListItem>;
  /** Pass as `cursor`, with the same filters, for the next (older) page; null on the last page. */
  next: string | null;
};

export type ActionParam = {
  Name: string;
  Value: string;
};

export type ExecuteProcessBody = {
  /** A filter on the sync's source records (a flow's: its first sync's), AND-ed with the sync's own; the expression grammar of GETDATA_WHERE. #params.Name# takes an ActionParam. Empty or null: none. */
  WhereClause?: string | null;
  /** Any case is accepted. */
  StartType: 'manual' | 'repeat' | 'planned' | 'Single';
  /** Parameters of the run: $params in the mapping, #params.Name# in filters. One name is the runtime's own: FULL_RUN with the Value true makes a sync with a cursor (source.cursor) read every record instead of only those past its high-water mark (for a flow: each of its syncs). */
  ActionParams?: Array<{
    Name: string;
    Value: string;
  }> | null;
};

export type WebhookLogSummary = {
  id: string;
  webhookId: string;
  at: string;
  method: string;
  status: number;
  durationMs: number;
  queueItemId: string | null;
  /** null for a call of the webhook URL. */
  origin: 'test' | 'replay' | null;
  /** The entry a replay or a test with a pin sent again. */
  replayOf: string | null;
  /** The X-Request-Id of the HTTP request that made the call (given by the caller, or made up). */
  requestId: string | null;
  pinned: boolean;
  hasPayload: boolean;
  replayable: boolean;
};

export type WebhookLogEntry = {
  id: string;
  webhookId: string;
  at: string;
  method: string;
  status: number;
  durationMs: number;
  queueItemId: string | null;
  /** null for a call of the webhook URL. */
  origin: 'test' | 'replay' | null;
  /** The entry a replay or a test with a pin sent again. */
  replayOf: string | null;
  /** The X-Request-Id of the HTTP request that made the call (given by the caller, or made up). */
  requestId: string | null;
  pinned: boolean;
  hasPayload: boolean;
  replayable: boolean;
  ticker: Array<TickerMessage>;
  /** Kept only when the webhook logs payloads; credentials redacted. The raw body only when the data lost nothing. */
  payload: {
    headers: Record<string, string | Array<string>>;
    query: Record<string, string | Array<string>>;
    data?: unknown;
    body?: string;
    bodyEncoding?: 'utf8' | 'base64';
    truncated?: {
      bytes: number;
      limit: number;
      preview: string;
    };
    /** Why data and body are missing: the body was refused (`body refused (400): …`), or could not be stored. Such an entry cannot be replayed. */
    note?: string;
    /** Where credentials were taken out of the data or the query (e.g. data.user.password): such an entry cannot be replayed. */
    redacted?: Array<string>;
  } | null;
  response: {
    body?: unknown;
    truncated?: {
      bytes: number;
      limit: number;
      preview: string;
    };
  } | null;
};

export type TickerMessage = {
  at: string;
  kind: string;
  message: string;
  data?: Record<string, unknown>;
};

export type WebhookResponse = {
  status: number;
  headers: Record<string, string>;
  /** The raw body as text. */
  body: string;
};

/** A connected system: no connection settings, only what it holds. */
export type SystemSummary = {
  id: string;
  name?: string;
  description?: string;
  /** The connector kind: sql, odata, http, file. */
  connector: string;
  /** The system refuses writes. */
  readOnly: boolean;
  /** What the system's connector can do; a request needing a capability it lacks is answered 422. */
  capabilities: {
    filterPushDown: boolean;
    limit: boolean;
    skip: boolean;
    order: boolean;
    count: boolean;
    typedGroups: boolean;
    transactions: boolean;
    readOnlyQuery: boolean;
  };
  /** Relative to the definitions directory. */
  file: string;
  line: number;
  /** Object names, as the connection routes take them. */
  objects: Array<string>;
  queries: Array<string>;
};

/** A connected system with each object's key, fields and typed groups and each query's columns (never the statement). */
export type SystemDetail = {
  id: string;
  name?: string;
  description?: string;
  /** The connector kind: sql, odata, http, file. */
  connector: string;
  /** The system refuses writes. */
  readOnly: boolean;
  /** What the system's connector can do; a request needing a capability it lacks is answered 422. */
  capabilities: {
    filterPushDown: boolean;
    limit: boolean;
    skip: boolean;
    order: boolean;
    count: boolean;
    typedGroups: boolean;
    transactions: boolean;
    readOnlyQuery: boolean;
  };
  /** Relative to the definitions directory. */
  file: string;
  line: number;
  objects: Array<{
    name: string;
    description?: string;
    /** The fields that identify a record. */
    key: Array<string>;
    fields: Array<FieldDescription>;
    groups: Array<GroupDescription>;
    /** Writes are refused (the object or its system is read-only). */
    readOnly: boolean;
  }>;
  queries: Array<{
    name: string;
    description?: string;
    columns: Array<{
      name: string;
      type: 'String' | 'Integer' | 'Number' | 'Boolean' | 'Date' | 'DateTime' | 'Json';
    }>;
  }>;
};

export type ReloadProblem = {
  /** Relative to the definitions directory. */
  file: string;
  line: number;
  column: number;
  kind?: string;
  id?: string;
  /** Stable code, e.g. yaml-syntax, schema, unknown-reference. */
  code: string;
  message: string;
  severity: 'error' | 'warning';
};

/** The last reload: when, whether it succeeded, and its problems (its warnings when it succeeded). */
export type LastReload = {
  at: string;
  /** False: the edit was refused and the previous definitions keep serving. */
  ok: boolean;
  durationMs: number;
  problems: Array<ReloadProblem>;
  /** Problems of definitions this client may not see, left out. */
  hiddenProblems: number;
};

export type Schedule = {
  id: string;
  kind: 'Sync' | 'Flow';
  name?: string;
  /** The interval as written (start type repeat). */
  every?: string;
  /** The cron expression as written (start type planned). */
  cron?: string;
  timezone?: string;
  startType: 'repeat' | 'planned';
  /** A daemon (with its scheduler) is active in the cluster and the schedule has a next slot. */
  active: boolean;
  /** The next slot as the scheduler computes it (UTC). */
  nextRun: string | null;
  lastRun: null | {
    slotAt: string;
    itemId: string;
    /** Null when the item has been pruned. */
    status: 'Pending' | 'InProgress' | 'Complete' | 'Failed' | null;
  };
};

export type DefinitionSummary = {
  id: string;
  name?: string;
  /** Relative to the definitions directory. */
  file: string;
  line: number;
  column: number;
};

export type WebhookSummary = {
  id: string;
  name?: string;
  /** The path callers send to: /api/webhooks/{id}. */
  url: string;
  action: 'startSync' | 'readWithSync' | 'readQueryWithSync' | 'saveWithSync' | 'readWithSystem' | 'readQueryWithSystem' | 'saveWithSystem';
  sync?: string;
  flow?: string;
  system?: string;
  object?: string;
  query?: string;
  /** Inactive webhooks answer 410. */
  active: boolean;
  /** Callers must send the secret; the secret itself is never shown. */
  hasSecret: boolean;
  /** The signature profile callers sign with. */
  signature: 'github' | 'stripe' | 'slack' | 'zoom' | 'hmac' | null;
  pinnedEntries: number;
  /** Relative to the definitions directory. */
  file: string;
  line: number;
};

/** Every operation by its operationId: path and query parameters, JSON request body, JSON answer of success (`never`: none). */
export interface Operations {
  /** GET /healthz: The process answers. */
  health: {
    path: never;
    query: never;
    body: never;
    answer: {
      status: 'ok';
    };
  };
  /** GET /readyz: Definitions loaded, the last reload and its problems; the queue. */
  ready: {
    path: never;
    query: never;
    body: never;
    answer: {
      status: 'ready';
      /** Queue items by status, when the earliest Pending one is due, and whether this process runs a daemon (without one anywhere, Pending items wait). */
      queue: {
        Pending: number;
        InProgress: number;
        Complete: number;
        Failed: number;
        nextDue: string | null;
        daemon: 'active' | 'inactive';
      };
      snapshot: {
        digest: string;
        loadedAt: string;
        /** How many definition files are loaded. */
        files: number;
        /** How many definitions of each kind are loaded (ids stay behind a token). */
        definitions: {
          System?: number;
          Sync?: number;
          Webhook?: number;
          Flow?: number;
          ApiClient?: number;
        };
      };
      lastReload: {
        at: string;
        ok: boolean;
        durationMs: number;
        /** file:line:column: Kind/id: message */
        problems: Array<string>;
      };
    };
  };
  /** GET /metrics: Prometheus metrics. */
  metrics: {
    path: never;
    query: never;
    body: never;
    answer: never;
  };
  /** GET /api/openapi.json: This interface description, generated from the definitions being served. */
  openapi: {
    path: never;
    query: never;
    body: never;
    answer: Record<string, unknown>;
  };
  /** POST /api/StartProcessAdHoc/{syncId}/{sourceId}: Queue one source record for a sync or flow (scope queue:write); a daemon runs it. */
  StartProcessAdHoc: {
    path: {
      /** The sync or flow. */
      syncId: string;
      /** The source record: its key value, or the GUID of a record-store entry (for a flow: one stored for its first step, which alone reads it). */
      sourceId: string;
    };
    query: never;
    body: never;
    answer: QueueItem;
  };
  /** POST /api/AddAction: Queue a start of any kind of a sync or flow (scope queue:write); a daemon runs it. */
  AddAction: {
    path: never;
    query: never;
    body: {
      ProcessId: string;
      /** Any case is accepted. */
      StartType: 'AdHoc' | 'manual' | 'repeat' | 'planned' | 'Single';
      /** One source record: its key, or a record-store GUID (a flow's: its first step's). */
      SourceId?: string | null;
      /** A filter on the sync's source records (a flow's: its first sync's), AND-ed with the sync's own; the expression grammar of GETDATA_WHERE. #params.Name# takes an ActionParam. Empty or null: none. */
      WhereClause?: string | null;
      /** Parameters of the run: $params in the mapping, #params.Name# in filters. One name is the runtime's own: FULL_RUN with the Value true makes a sync with a cursor (source.cursor) read every record instead of only those past its high-water mark (for a flow: each of its syncs). */
      ActionParams?: Array<{
        Name: string;
        Value: string;
      }> | null;
    };
    answer: QueueItem;
  };
  /** POST /api/StartProcessDirect/{syncId}/{sourceId}: Run one source record through a sync or flow in this request and answer the finished item (scope queue:write). */
  StartProcessDirect: {
    path: {
      /** The sync or flow. */
      syncId: string;
      /** The source record: its key value, or the GUID of a record-store entry (for a flow: one stored for its first step, which alone reads it). */
      sourceId: string;
    };
    query: never;
    body: never;
    answer: QueueItem;
  };
  /** POST /api/ExecuteProcess/{syncId}: Run a sync or flow in this request and answer the finished item (scope queue:write). */
  ExecuteProcess: {
    path: {
      /** The sync or flow. */
      syncId: string;
    };
    query: never;
    body: ExecuteProcessBody;
    answer: QueueItem;
  };
  /** GET /api/GetAction/{queueId}: Status, statistics and errors of a queue item (scope queue:read). */
  GetAction: {
    path: {
      /** The ID a start answered. */
      queueId: string;
    };
    query: never;
    body: never;
    answer: QueueItem;
  };
  /** GET /api/queue: Queue items, newest first, filtered and paged (scope queue:read); a client's sync allow-list limits them to its syncs. */
  ListQueueItems: {
    path: never;
    query: {
      /** Only the items of this sync or flow (any case). */
      sync?: string;
      /** Only items in these statuses: the parameter repeated, or a comma-separated list (any case). */
      status?: Array<'Pending' | 'InProgress' | 'Complete' | 'Failed'>;
      /** Only items of this start type (any case). */
      startType?: 'AdHoc' | 'manual' | 'repeat' | 'planned' | 'Single';
      /** Only items created at or after this time. */
      createdFrom?: string;
      /** Only items created before this time; after createdFrom. */
      createdTo?: string;
      /** Only items that finished (Complete or Failed) at or after this time. */
      finishedFrom?: string;
      /** Only items that finished before this time; after finishedFrom. */
      finishedTo?: string;
      /** Items per page. */
      limit?: number;
      /** The `next` of the previous page; absent for the first (newest) page. */
      cursor?: string;
    };
    body: never;
    answer: QueuePage;
  };
  /** GET /api/queue/{queueId}/events: Follow an item's progress as server-sent events until it is Complete or Failed (scope queue:read). */
  QueueItemEvents: {
    path: {
      /** The ID of the item. */
      queueId: string;
    };
    query: never;
    body: never;
    answer: never;
  };
  /** POST /api/queue/{queueId}/cancel: End a Pending item as Failed without running it, with the error "cancelled by client <id>" (scope queue:write). */
  CancelQueueItem: {
    path: {
      /** The ID of the item. */
      queueId: string;
    };
    query: never;
    body: never;
    answer: QueueItem;
  };
  /** POST /api/queue/{queueId}/retry: Start a Failed item again as a new item with the same process, start type, source id, WhereClause and ActionParams (scope queue:write); the failed item stays as it ended. */
  RetryQueueItem: {
    path: {
      /** The ID of the item. */
      queueId: string;
    };
    query: never;
    body: never;
    answer: QueueItem;
  };
  /** POST /api/RunConnectionGetData/{system_key}/{object_type}: Read records with metadata (fields, types, object groups) for display. */
  RunConnectionGetData: {
    path: {
      /** The connected system. */
      system_key: string;
      /** The schema object of the system. */
      object_type: string;
    };
    query: never;
    body: ReadParameters | undefined;
    answer: {
      system?: string;
      object?: string;
      key?: Array<string>;
      fields: Array<FieldDescription>;
      groups: Array<GroupDescription>;
      total: number;
      records: Array<Record<string, unknown>>;
    };
  };
  /** POST /api/RunConnectionGetDataMin/{system_key}/{object_type}: Read records only, groups as direct properties: for processing. */
  RunConnectionGetDataMin: {
    path: {
      /** The connected system. */
      system_key: string;
      /** The schema object of the system. */
      object_type: string;
    };
    query: never;
    body: ReadParameters | undefined;
    answer: Array<Record<string, unknown>>;
  };
  /** GET /api/GetDataObject/{system_key}/{object_type}/{object_key}: One record with metadata. */
  GetDataObject: {
    path: {
      /** The connected system. */
      system_key: string;
      /** The schema object of the system. */
      object_type: string;
      /** The key value; composite keys as values in key order separated by commas, or a JSON object. */
      object_key: string;
    };
    query: never;
    body: never;
    answer: {
      system?: string;
      object?: string;
      key?: Array<string>;
      fields?: Array<FieldDescription>;
      groups?: Array<GroupDescription>;
      record: Record<string, unknown>;
    };
  };
  /** POST /api/RunConnectionGetQueryData/{system_key}: Run a read-only query (scope systems:query). */
  RunConnectionGetQueryData: {
    path: {
      /** The connected system. */
      system_key: string;
    };
    query: never;
    body: QueryBody;
    answer: {
      columns: Array<QueryColumn>;
      records: Array<Record<string, unknown>>;
      total?: number;
    };
  };
  /** POST /api/RunConnectionSetData/{system_key}/{object_type}: Create or update a record, including typed object groups (group[type].field). */
  RunConnectionSetData: {
    path: {
      /** The connected system. */
      system_key: string;
      /** The schema object of the system. */
      object_type: string;
    };
    query: never;
    body: FullWrite;
    answer: WriteResult;
  };
  /** POST /api/RunConnectionSetDataMin/{system_key}/{object_type}: Create or update a record from a flat object (no typed groups). */
  RunConnectionSetDataMin: {
    path: {
      /** The connected system. */
      system_key: string;
      /** The schema object of the system. */
      object_type: string;
    };
    query: never;
    body: Record<string, unknown>;
    answer: WriteResult;
  };
  /** GET /api/console/webhooks/{webhookId}/log: Log entries of a webhook, newest first, filtered and paged (scope console); unknown parameters are refused. */
  webhookLog: {
    path: {
      webhookId: string;
    };
    query: {
      /** Entries per page. */
      limit?: number;
      /** The `next` of the previous page, with the same filters; absent for the first (newest) page. */
      cursor?: string;
      /** true: pinned entries only. */
      pinned?: 'true' | 'false';
      /** Only entries that answered these HTTP statuses: classes (`2xx`, `4xx`) or codes (`404`), the parameter repeated or comma-separated. */
      status?: Array<string>;
      /** Only entries of these origins: `call` (a call of the webhook URL), `test`, `replay`; repeated or comma-separated. */
      origin?: Array<'call' | 'test' | 'replay'>;
      /** Only entries at or after this time. */
      from?: string;
      /** Only entries before this time; after from. */
      to?: string;
    };
    body: never;
    answer: {
      entries: Array<WebhookLogSummary>;
      /** Pass as `cursor`, with the same filters, for the next (older) page; null on the last page. */
      next: string | null;
    };
  };
  /** GET /api/console/webhooks/{webhookId}/log/{entryId}: One log entry with its ticker, payload and response (scope console). */
  webhookLogEntry: {
    path: {
      webhookId: string;
      entryId: string;
    };
    query: never;
    body: never;
    answer: WebhookLogEntry;
  };
  /** POST /api/console/webhooks/{webhookId}/log/{entryId}/pin: Pin an entry: kept past the retention, and replayable (scope console). */
  pinWebhookLogEntry: {
    path: {
      webhookId: string;
      entryId: string;
    };
    query: never;
    body: never;
    answer: WebhookLogEntry;
  };
  /** DELETE /api/console/webhooks/{webhookId}/log/{entryId}/pin: Unpin an entry (scope console). */
  unpinWebhookLogEntry: {
    path: {
      webhookId: string;
      entryId: string;
    };
    query: never;
    body: never;
    answer: WebhookLogEntry;
  };
  /** POST /api/console/webhooks/{webhookId}/log/{entryId}/replay: Send the request of a pinned entry to the webhook again, for real; logged as a new entry naming this one (scope console). */
  replayWebhookLogEntry: {
    path: {
      webhookId: string;
      entryId: string;
    };
    query: never;
    body: never;
    answer: {
      entryId: string;
      replayOf: string;
      response: WebhookResponse;
    };
  };
  /** POST /api/console/webhooks/{webhookId}/test: Call the webhook for real with typed JSON or a pinned entry; stream the ticker live and the response (scope console). */
  testWebhook: {
    path: {
      webhookId: string;
    };
    query: never;
    body: {
      data: unknown;
    } | {
      pin: string;
    };
    answer: never;
  };
  /** GET /api/console/overview: Version, role, queue counts, daemons across the cluster, schedules and the last reload (scope console). */
  consoleOverview: {
    path: never;
    query: never;
    body: never;
    answer: {
      version: string;
      /** What this process runs beside the API. */
      role: 'api' | 'api+daemon';
      /** Queue items by status (only those of the syncs and flows the client may see, with a sync allow-list). */
      queue: {
        Pending: number;
        InProgress: number;
        Complete: number;
        Failed: number;
      };
      /** Active daemons, oldest first. */
      daemons: {
        count: number;
        daemons: Array<{
          id: string;
          host: string;
          pid: number;
          version: string;
          command: 'serve' | 'daemon';
          concurrency: number;
          /** Items it ran at its last heartbeat. */
          running: number;
          startedAt: string;
          lastHeartbeatAt: string;
        }>;
      };
      schedules: Array<Schedule>;
      lastReload: LastReload;
    };
  };
  /** GET /api/schedules: Every scheduled sync and flow with its next and last run (scope console). */
  listSchedules: {
    path: never;
    query: never;
    body: never;
    answer: {
      schedules: Array<Schedule>;
    };
  };
  /** GET /api/definitions: What is loaded — kind, id, name, file and line — and the last reload with its problems (scope console). */
  listDefinitions: {
    path: never;
    query: never;
    body: never;
    answer: {
      digest: string;
      loadedAt: string;
      definitions: {
        System: Array<DefinitionSummary>;
        Sync: Array<DefinitionSummary>;
        Webhook: Array<DefinitionSummary>;
        Flow: Array<DefinitionSummary>;
        ApiClient: Array<DefinitionSummary>;
      };
      lastReload: LastReload;
    };
  };
  /** GET /api/webhooks: The webhooks: URL, action, what they touch, active, whether they have a secret (scope console). */
  listWebhooks: {
    path: never;
    query: never;
    body: never;
    answer: {
      webhooks: Array<WebhookSummary>;
    };
  };
  /** GET /api/systems: The systems the client may use: connector, capabilities, objects and queries (scope console). */
  listSystems: {
    path: never;
    query: never;
    body: never;
    answer: {
      systems: Array<SystemSummary>;
    };
  };
  /** GET /api/systems/{systemId}: A system's objects with their key, fields and typed groups, and its queries' columns (scope console). */
  getSystem: {
    path: {
      /** The system (any case). */
      systemId: string;
    };
    query: never;
    body: never;
    answer: SystemDetail;
  };
}
