/**
 * The HTTP application in process, as `syncline serve` builds it (createApp over a snapshot holder,
 * a connection pool and a logger), listening on a free port of 127.0.0.1:
 *
 * - `quickstartApp()`: a temporary copy of examples/quickstart with fresh SQLite files made from
 *   its data/*.sql, exactly as `npm start` makes them;
 * - `engineApp(database)`: the same definitions and rows on a TestDatabase (SQLite, PostgreSQL or
 *   MariaDB from test/support/databases.ts), both systems in that one database. Start and close it
 *   in a `describe` nested in describeEachDatabase's body, so it closes before the database is
 *   dropped (hooks of one suite run in the order they were registered).
 *
 * Both add `test-clients.yaml` with API clients of narrower rights (see `tokens`), capture the log
 * as parsed JSON lines, and can watch the definitions for hot reload. Definitions see only the
 * environment given here, never the developer's.
 *
 * Both open a migrated runtime database (queue items) as `serve` does: an SQLite file in the
 * temporary directory for the quickstart, the TestDatabase itself for engineApp; and run direct
 * starts with the real sync engine. No daemon runs: enqueued items stay Pending. The app has
 * metrics of its own (a registry per app), as a process has.
 */
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { pino } from 'pino';
import { parseAllDocuments } from 'yaml';
import { ConnectionPool } from '../../connectors/connection-pool.js';
import { loadConnectorSpecs } from '../../connectors/index.js';
import type { ConnectorSpecs } from '../../definitions/connector-spec.js';
import { loadDefinitions } from '../../definitions/load-definitions.js';
import { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import { watchDefinitions, type DefinitionsWatcher } from '../../definitions/watch-definitions.js';
import { sha256 } from '../../runtime/http/auth.js';
import type { RunWebhook } from '../../runtime/http/webhook-console-routes.js';
import { parseDatabaseUrl } from '../../runtime/database/database-url.js';
import { migrate } from '../../runtime/database/migrate.js';
import { openDatabase, type RuntimeDatabase } from '../../runtime/database/open-database.js';
import type { RunProcess } from '../../runtime/execution/process-run.js';
import type { ItemRunner } from '../../runtime/execution/run-held-item.js';
import { createApp } from '../../runtime/http/create-app.js';
import type { ItemEventSettings } from '../../runtime/http/item-events.js';
import { createRuntimeMetrics } from '../../runtime/metrics/runtime-metrics.js';
import { runProcess } from '../../runtime/sync/run-process.js';
import type { ConnectionProvider } from '../../connectors/connection-pool.js';
import type { Logger } from '../../runtime/log.js';
import type { WebhookActionHandler } from '../../runtime/webhooks/webhook-call.js';
import type { Engine, TestDatabase } from './databases.js';
import { createSqliteFromScript } from '../../examples/quickstart/sql-script.js';
import { createCustomerAddressesTable } from '../integration/connectors/sql/sql-crm.js';

/** The registered connectors, which the definitions are checked against. */
const connectors = await loadConnectorSpecs();

const root = resolve(import.meta.dirname, '../..');
export const quickstartDir = join(root, 'examples', 'quickstart');

/** Bearer tokens of the test app. Each is long and unique, so a test can search logs and answers for it. */
export const tokens = {
  /** Every scope (SYNCLINE_ADMIN_TOKEN's role). */
  admin: 'admin-token-0123456789-abcdefghij-never-logged',
  /** The quickstart's own client: read, write, query; systems crm and erp. */
  operator: 'operator-token-0123456789-abcdefghij-never-logged',
  /** systems:read only. */
  reader: 'reader-token-0123456789-abcdefghij-never-logged',
  /** systems:read and systems:write, allow-list [erp]. */
  erpWriter: 'erp-writer-token-0123456789-abcdefghij-never-logged',
  /** queue:read only. */
  queueOnly: 'queue-only-token-0123456789-abcdefghij-never-logged',
  /** queue:read and queue:write, sync allow-list [crm-customers-to-erp] (plus syncs of `files`). */
  queueWriter: 'queue-writer-token-0123456789-abcdefghij-never-logged',
  /** systems:read and systems:query, defined by tokenSha256. */
  hashed: 'hashed-token-0123456789-abcdefghij-never-logged',
} as const;

const testClients = `
kind: ApiClient
id: test-reader
token: \${env:READER_TOKEN}
scopes: [systems:read]
---
kind: ApiClient
id: test-erp-writer
token: \${env:ERP_WRITER_TOKEN}
scopes: [systems:read, systems:write]
systems: [erp]
---
kind: ApiClient
id: test-queue-only
token: \${env:QUEUE_ONLY_TOKEN}
scopes: [queue:read]
---
kind: ApiClient
id: test-queue-writer
token: \${env:QUEUE_WRITER_TOKEN}
scopes: [queue:read, queue:write]
syncs: [crm-customers-to-erp]
---
kind: ApiClient
id: test-hashed
tokenSha256: ${sha256(tokens.hashed).toString('hex')}
scopes: [systems:read, systems:query]
`;

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface Answer {
  status: number;
  headers: Headers;
  /** The media type without parameters. */
  type: string;
  text: string;
  /** The parsed body when it is JSON (application/json or application/problem+json). */
  json: any;
}

export interface CallOptions {
  /** Bearer token; `null` sends no Authorization header. Default: the admin token. */
  token?: string | null;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as it is (takes precedence over `body`). */
  raw?: string | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
}

export interface HttpApp {
  /** http://127.0.0.1:port */
  base: string;
  /** The temporary definitions directory. */
  definitions: string;
  holder: SnapshotHolder;
  connections: ConnectionPool;
  logs: LogLine[];
  /** Direct access to the databases of the crm and erp systems (the same one for engineApp). */
  crm: Knex;
  erp: Knex;
  engine: Engine;
  /** The runtime database (queue items). */
  db: RuntimeDatabase;
  /** The runner of the app's direct runs; a test may start a daemon on it to run Pending items. */
  runner: ItemRunner;
  call(method: string, path: string, options?: CallOptions): Promise<Answer>;
  post(path: string, body?: unknown, token?: string | null): Promise<Answer>;
  get(path: string, token?: string | null): Promise<Answer>;
  close(): Promise<void>;
}

export interface AppSettings {
  bodyLimit?: number;
  /** Watch the definitions directory and swap snapshots as `serve` does. */
  watch?: boolean;
  /** Replaces the connection pool (to inject failures). */
  connections?: (pool: ConnectionPool) => ConnectionProvider;
  /**
   * The connector specs the definitions are loaded with, made from the registered ones (to serve a
   * system whose connector declares fewer capabilities). The connections stay the registered
   * connectors' own.
   */
  connectorSpecs?: (registered: ConnectorSpecs) => ConnectorSpecs;
  /** Extra environment for the definitions. */
  env?: Record<string, string>;
  /** Extra definition files: file name → YAML text. */
  files?: Record<string, string>;
  /** The logger instead of the capturing one (`logs` stays empty), e.g. for benchmarks. */
  log?: Logger;
  /** How long direct starts wait before answering 202 (default 60 s). */
  syncTimeLimitMs?: number;
  /** Wraps the sync engine's runProcess (to slow a run down or make it fail). */
  runProcess?: (real: RunProcess) => RunProcess;
  /** The in-process webhook runner of the console's test and replay, given the app's database and snapshots. */
  runWebhook?: (parts: { db: RuntimeDatabase; holder: SnapshotHolder }) => RunWebhook;
  /** Replaces the webhook action dispatcher (to test the endpoint around a known answer). */
  webhookAction?: WebhookActionHandler;
  /** The lease of the app's runner (default 30 s); progress is stored every third of it. */
  leaseMs?: number;
  /** Limits and poll interval of the queue item event streams (a small cap, a quick poll). */
  eventStreams?: Partial<ItemEventSettings>;
  /** The admin token (SYNCLINE_ADMIN_TOKEN) instead of `tokens.admin`, e.g. the one a page of the docs sets. */
  adminToken?: string;
}

/** The quickstart over fresh SQLite files in a temporary directory. */
export async function quickstartApp(settings: AppSettings = {}): Promise<HttpApp> {
  const dir = await mkdtemp(join(tmpdir(), 'syncline-http-'));
  const crmFile = join(dir, 'crm.sqlite');
  const erpFile = join(dir, 'erp.sqlite');
  await createSqliteFromScript(crmFile, join(quickstartDir, 'data', 'crm.sql'));
  await createSqliteFromScript(erpFile, join(quickstartDir, 'data', 'erp.sql'));
  const definitions = await copyDefinitions(dir, undefined, settings.files);
  const crm = sqliteKnex(crmFile);
  const erp = sqliteKnex(erpFile);
  return start({
    dir,
    definitions,
    engine: 'sqlite',
    runtimeUrl: `sqlite:${join(dir, 'runtime.sqlite')}`,
    crm,
    erp,
    env: { CRM_DB: crmFile, ERP_DB: erpFile },
    settings,
    cleanup: async () => {
      await Promise.all([crm.destroy(), erp.destroy()]);
    },
  });
}

/**
 * The quickstart's definitions and rows on `database`: crm and erp both point at it (tables
 * customers, customer_addresses and accounts, made with Knex's schema builder for the engine).
 */
export async function engineApp(database: TestDatabase, settings: AppSettings = {}): Promise<HttpApp> {
  const dir = await mkdtemp(join(tmpdir(), 'syncline-http-'));
  await createQuickstartTables(database, dir);
  const definitions = await copyDefinitions(dir, database, settings.files);
  return start({
    dir,
    definitions,
    engine: database.engine,
    runtimeUrl: database.engine === 'sqlite' ? `sqlite:${absoluteFilename(database)}` : String(database.connection.url),
    crm: database.admin,
    erp: database.admin,
    env: { DATABASE_URL: String(database.connection.url ?? ''), DATABASE_FILE: absoluteFilename(database) },
    settings,
    // The tables go with the database (describeEachDatabase drops it).
    cleanup: async () => {},
  });
}

interface StartParts {
  dir: string;
  definitions: string;
  engine: Engine;
  /** Where the runtime database lives (parseDatabaseUrl). */
  runtimeUrl: string;
  crm: Knex;
  erp: Knex;
  env: Record<string, string>;
  settings: AppSettings;
  cleanup: () => Promise<void>;
}

async function start(parts: StartParts): Promise<HttpApp> {
  const { settings } = parts;
  const env = {
    QUICKSTART_API_TOKEN: tokens.operator,
    READER_TOKEN: tokens.reader,
    ERP_WRITER_TOKEN: tokens.erpWriter,
    QUEUE_ONLY_TOKEN: tokens.queueOnly,
    QUEUE_WRITER_TOKEN: tokens.queueWriter,
    ...parts.env,
    ...settings.env,
  };
  const specs = settings.connectorSpecs ? settings.connectorSpecs(connectors) : connectors;
  const loaded = await loadDefinitions([parts.definitions], { connectors: specs, env });
  if (!loaded.ok) throw new Error(`the test definitions are invalid: ${JSON.stringify(loaded.problems)}`);
  const holder = new SnapshotHolder(loaded.snapshot);
  // As serve does: a relative SQLite filename is taken from the definitions directory.
  const pool = new ConnectionPool({ baseDirectory: parts.definitions });
  let watcher: DefinitionsWatcher | undefined;
  if (settings.watch) {
    watcher = watchDefinitions([parts.definitions], holder, { connectors: specs, env });
    holder.on('swap', (snapshot) => void pool.retain([...snapshot.systems.values()].map((s) => s.definition)));
    await watcher.ready;
  }
  const logs: LogLine[] = [];
  const log =
    settings.log ??
    pino({ level: 'debug', base: { service: 'syncline' } }, { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) });
  const db = await openDatabase(parseDatabaseUrl(parts.runtimeUrl));
  await migrate(db);
  const connections = settings.connections ? settings.connections(pool) : pool;
  const metrics = createRuntimeMetrics({ holder, db, log, openSystems: () => pool.systemIds().length });
  const runner: ItemRunner = {
    db,
    snapshot: () => holder.current,
    connections,
    log,
    runProcess: settings.runProcess ? settings.runProcess(runProcess) : runProcess,
    workerId: `http-test-${process.pid}`,
    leaseMs: settings.leaseMs ?? 30_000,
    metrics: metrics.runs,
  };
  const app = createApp({
    holder,
    definitionsDir: parts.definitions,
    log,
    connections,
    adminTokenHash: sha256(settings.adminToken ?? tokens.admin),
    ...(settings.bodyLimit === undefined ? {} : { bodyLimit: settings.bodyLimit }),
    version: '0.0.0-test',
    db,
    runner,
    syncTimeLimitMs: settings.syncTimeLimitMs ?? 60_000,
    metrics,
    ...(settings.runWebhook === undefined ? {} : { runWebhook: settings.runWebhook({ db, holder }) }),
    ...(settings.webhookAction === undefined ? {} : { webhookAction: settings.webhookAction }),
    ...(settings.eventStreams === undefined ? {} : { eventStreams: settings.eventStreams }),
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const call = async (method: string, path: string, options: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? (settings.adminToken ?? tokens.admin) : options.token;
    if (token !== null) headers.authorization ??= `Bearer ${token}`;
    let body: string | Uint8Array<ArrayBuffer> | undefined = options.raw;
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    // Redirects are answers to look at (a webhook's redirectUrl), not to follow: as curl without -L.
    const response = await fetch(`${base}${path}`, { method, headers, redirect: 'manual', ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const json = /json$/.test(type) && text !== '' ? (JSON.parse(text) as unknown) : undefined;
    return { status: response.status, headers: response.headers, type, text, json };
  };

  return {
    base,
    definitions: parts.definitions,
    holder,
    connections: pool,
    logs,
    crm: parts.crm,
    erp: parts.erp,
    engine: parts.engine,
    db,
    runner,
    call,
    post: (path, body, token) => call('POST', path, { ...(body === undefined ? {} : { body }), ...(token === undefined ? {} : { token }) }),
    get: (path, token) => call('GET', path, token === undefined ? {} : { token }),
    async close() {
      await watcher?.close();
      server.close();
      server.closeAllConnections();
      await once(server, 'close');
      await pool.closeAll();
      await db.close();
      await parts.cleanup();
      await rm(parts.dir, { recursive: true, force: true });
    },
  };
}

/**
 * The `connection` of a System on engineApp's database, for extra definition files (`files`): as
 * JSON, which YAML reads as a flow mapping, e.g. `connection: ${JSON.stringify(engineConnection(engine))}`.
 */
export function engineConnection(engine: Engine): Record<string, string> {
  return engine === 'sqlite'
    ? { client: 'sqlite3', filename: '${env:DATABASE_FILE}' }
    : { client: engine === 'postgres' ? 'pg' : 'mysql2', url: '${env:DATABASE_URL}' };
}

/** The quickstart's YAML files and the test clients; on a TestDatabase, both systems point at it. */
async function copyDefinitions(dir: string, database?: TestDatabase, files: Record<string, string> = {}): Promise<string> {
  const definitions = join(dir, 'definitions');
  await mkdir(definitions);
  for (const name of await readdir(quickstartDir)) {
    if (!name.endsWith('.yaml')) continue;
    if (name === 'systems.yaml' && database) {
      const documents = parseAllDocuments(await readFile(join(quickstartDir, name), 'utf8'));
      const connection = engineConnection(database.engine);
      const text = documents
        .map((document) => {
          if (Array.isArray(document)) throw new Error('unexpected YAML');
          document.set('connection', document.createNode(connection));
          return document.toString();
        })
        .join('---\n');
      await writeFile(join(definitions, name), text);
    } else {
      await copyFile(join(quickstartDir, name), join(definitions, name));
    }
  }
  await writeFile(join(definitions, 'test-clients.yaml'), testClients);
  for (const [name, text] of Object.entries(files)) {
    // A name may lie in a subdirectory (`nightly/nightly.yaml`), as definitions directories nest.
    await mkdir(dirname(join(definitions, name)), { recursive: true });
    await writeFile(join(definitions, name), text);
  }
  return definitions;
}

function sqliteKnex(filename: string): Knex {
  return knexFactory({ client: 'sqlite3', connection: { filename }, useNullAsDefault: true });
}

function absoluteFilename(database: TestDatabase): string {
  const filename = String(database.connection.filename ?? '');
  return filename === '' || isAbsolute(filename) ? filename : join(database.baseDirectory, filename);
}

/** The quickstart's tables on any engine, with the rows of its data/*.sql (read through a scratch SQLite file). */
async function createQuickstartTables(database: TestDatabase, scratch: string): Promise<void> {
  const { admin, engine } = database;
  const rows = await quickstartRows(scratch);
  await admin.schema.createTable('customers', (t) => {
    t.increments('id');
    t.string('name', 200).notNullable();
    t.string('email', 200);
    t.boolean('active').notNullable().defaultTo(true);
    t.datetime('updated_at', { precision: 3 });
  });
  await createCustomerAddressesTable(admin);
  await admin.schema.createTable('accounts', (t) => {
    t.string('AccountNumber', 40).primary();
    t.string('AccountName', 200).notNullable();
    t.string('Email', 200);
    t.string('City', 200);
    t.string('Country', 2);
    t.datetime('SyncedAt', { precision: 3 });
  });
  const dateTime = (iso: unknown) => (iso === null || engine !== 'mariadb' ? iso : String(iso).replace('T', ' ').replace('Z', ''));
  await admin('customers').insert(
    rows.customers.map((row) => ({ ...row, active: Boolean(row.active), updated_at: dateTime(row.updated_at) })),
  );
  await admin('customer_addresses').insert(rows.addresses);
  await admin('accounts').insert(rows.accounts.map((row) => ({ ...row, SyncedAt: dateTime(row.SyncedAt) })));
  if (engine === 'postgres') await admin.raw(`SELECT setval(pg_get_serial_sequence('customers', 'id'), (SELECT MAX(id) FROM customers))`);
}

type Row = Record<string, unknown>;

async function quickstartRows(scratch: string): Promise<{ customers: Row[]; addresses: Row[]; accounts: Row[] }> {
  const crmFile = join(scratch, 'scratch-crm.sqlite');
  const erpFile = join(scratch, 'scratch-erp.sqlite');
  await createSqliteFromScript(crmFile, join(quickstartDir, 'data', 'crm.sql'));
  await createSqliteFromScript(erpFile, join(quickstartDir, 'data', 'erp.sql'));
  const crm = sqliteKnex(crmFile);
  const erp = sqliteKnex(erpFile);
  try {
    return {
      customers: await crm('customers').select().orderBy('id'),
      addresses: await crm('customer_addresses').select().orderBy(['customer_id', 'type']),
      accounts: await erp('accounts').select().orderBy('AccountNumber'),
    };
  } finally {
    await Promise.all([crm.destroy(), erp.destroy()]);
    await rm(crmFile, { force: true });
    await rm(erpFile, { force: true });
  }
}

/** Every row of every table of the quickstart, in a stable order: to prove that nothing changed. */
export async function tableContents(app: HttpApp): Promise<{ customers: Row[]; customer_addresses: Row[]; accounts: Row[] }> {
  return {
    customers: await app.crm('customers').select().orderBy('id'),
    customer_addresses: await app.crm('customer_addresses').select().orderBy(['customer_id', 'type']),
    accounts: await app.erp('accounts').select().orderBy('AccountNumber'),
  };
}

/** Names of the tables in the app's databases, to prove that none was added or dropped. */
export async function tableNames(app: HttpApp): Promise<string[]> {
  const names = async (knex: Knex): Promise<string[]> => {
    if (app.engine === 'sqlite')
      return ((await knex.raw(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)) as Row[]).map((r) => String(r.name));
    if (app.engine === 'postgres')
      return (await knex('information_schema.tables').where({ table_schema: 'public' }).orderBy('table_name').pluck('table_name')).map(
        String,
      );
    return (await knex('information_schema.tables').whereRaw('table_schema = DATABASE()').orderBy('TABLE_NAME').pluck('TABLE_NAME')).map(
      String,
    );
  };
  return app.crm === app.erp ? names(app.crm) : [...(await names(app.crm)), ...(await names(app.erp))];
}
