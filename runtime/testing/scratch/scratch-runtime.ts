/**
 * The world a webhook or sync case runs in: a copy of the snapshot whose every System is a scratch
 * SQLite database (scratch-system.ts, tables from scratch-tables.ts), the connections to them, and
 * a scratch runtime database (queue, record store, idempotency), all files in the case's scratch
 * directory. Every system is replaced, not only those a case seems to touch: then nothing the
 * runtime does — a flow's later step, a webhook's sync — can reach a real system or the network,
 * whatever the definitions say.
 *
 * Besides, each webhook of the copy has no rate limit: the limit is counted in process memory,
 * across calls, and one case is one call, always within it — but a file of cases must not use
 * up a webhook's budget for the cases after it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Connection, ObjectDescription, RecordData, WriteRequest, WriteResult } from '../../../connectors/connection.js';
import { ConnectionPool, type ConnectionProvider } from '../../../connectors/connection-pool.js';
import type { ConnectorError } from '../../../connectors/connector-error.js';
import { loadConnector } from '../../../connectors/index.js';
import { deepFreeze, frozenMap, type Snapshot, type SystemEntry, type WebhookEntry } from '../../../definitions/snapshot.js';
import type { SystemDefinition } from '../../../definitions/types.js';
import { migrate } from '../../database/migrate.js';
import { openDatabase, type RuntimeDatabase } from '../../database/open-database.js';
import type { Logger } from '../../log.js';
import { refusalKey, scratchSystem, type ScratchSystem } from './scratch-system.js';
import { createScratchTables } from './scratch-tables.js';

export interface Scratch {
  /** The definitions under test with every system on its scratch file. */
  readonly snapshot: Snapshot;
  /** Connections to the scratch systems, as the runtime uses them. */
  readonly connections: ConnectionProvider;
  /** The scratch runtime database, migrated. */
  readonly db: RuntimeDatabase;
  /** Keeps what the runtime logs as errors (a webhook's 500 says only "the server log has the details"), and nothing else. */
  readonly log: Logger;
  /** The errors logged so far, one line each: `<message>: <the error's message>`. */
  loggedErrors(): string[];
  /** Why a system's object or query has no stand-in; undefined when it has one (or does not exist). */
  refusal(systemId: string, kind: 'object' | 'query', name: string): string | undefined;
  /** An object of a scratch system, described; throws the connector's error for an unknown object. */
  describe(systemId: string, object: string): Promise<ObjectDescription>;
  /** Writes fixture rows as the system's records (groups as typed group entries); one answer per row. */
  load(systemId: string, object: string, rows: readonly RecordData[]): Promise<Array<WriteResult | ConnectorError>>;
  /** Every record of an object, groups attached, in key order. */
  rows(systemId: string, object: string): Promise<RecordData[]>;
  close(): Promise<void>;
}

export async function openScratch(snapshot: Snapshot, directory: string): Promise<Scratch> {
  const systemsDirectory = join(directory, 'systems');
  mkdirSync(systemsDirectory, { recursive: true });
  const scratches = new Map<string, ScratchSystem>();
  let index = 0;
  for (const [id, entry] of snapshot.systems) {
    index += 1;
    // System ids may hold dots and dashes, never a path separator; the number keeps names apart on case-blind disks.
    const filename = join(systemsDirectory, `${index}-${id}.sqlite`);
    const scratch = scratchSystem(entry.definition, filename);
    await createScratchTables(filename, scratch.definition);
    scratches.set(id, scratch);
  }
  const copy = scratchSnapshot(snapshot, scratches);
  const context = { baseDirectory: directory, fileRoots: [directory] };
  const db = await openDatabase({
    dialect: 'sqlite',
    filename: join(directory, 'runtime.sqlite'),
    createFolder: false,
    display: 'the scratch runtime database',
  });
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  const connections = new ConnectionPool(context);
  // The loaders write and read past read-only flags; they are connections of their own, on the same files.
  const loaders = new Map<string, Promise<Connection>>();
  const loader = (systemId: string): Promise<Connection> => {
    let connection = loaders.get(systemId);
    if (connection === undefined) {
      const scratch = scratches.get(systemId);
      if (scratch === undefined) return Promise.reject(new Error(`no system '${systemId}'`));
      connection = connectionOf(scratch.loader, context);
      loaders.set(systemId, connection);
    }
    return connection;
  };
  const logged: string[] = [];
  const log = pino({ level: 'error' }, { write: (line: string) => void logged.push(errorLine(line)) });

  return {
    snapshot: copy,
    connections,
    db,
    log,
    loggedErrors: () => [...logged],
    refusal: (systemId, kind, name) => scratches.get(systemId)?.refused.get(refusalKey(kind, name)),
    describe: async (systemId, object) => (await loader(systemId)).describe(object),
    async load(systemId, object, rows) {
      const connection = await loader(systemId);
      const groups = new Set(connection.describe(object).groups.map((group) => group.name));
      return connection.writeMany(
        object,
        rows.map((row) => writeOf(row, groups)),
      );
    },
    async rows(systemId, object) {
      const all: RecordData[] = [];
      for await (const page of (await loader(systemId)).read(object)) all.push(...page);
      return all;
    },
    async close() {
      const opened = await Promise.allSettled(loaders.values());
      await Promise.allSettled(opened.map((result) => (result.status === 'fulfilled' ? result.value.close() : undefined)));
      await connections.closeAll();
      await db.close();
    },
  };
}

/** A pino line as `message: error message`. */
function errorLine(line: string): string {
  try {
    const entry = JSON.parse(line) as { msg?: unknown; err?: { message?: unknown } };
    const cause = typeof entry.err?.message === 'string' ? `: ${entry.err.message}` : '';
    return `${String(entry.msg ?? '')}${cause}`;
  } catch {
    return line.trim();
  }
}

async function connectionOf(system: SystemDefinition, context: { baseDirectory: string; fileRoots: string[] }): Promise<Connection> {
  const module = await loadConnector(system.connector);
  if (module === undefined) throw new Error(`no connector '${system.connector}'`);
  return module.createConnection(system, context);
}

/** A fixture row as a write: group properties (`addresses: { main: {…} }`) as group entries, the rest as values. */
function writeOf(row: RecordData, groups: ReadonlySet<string>): WriteRequest {
  const values: RecordData = {};
  const entries: Record<string, Record<string, RecordData>> = {};
  for (const [name, value] of Object.entries(row)) {
    if (groups.has(name) && value !== null && typeof value === 'object' && !Array.isArray(value))
      entries[name] = value as Record<string, RecordData>;
    else values[name] = value;
  }
  return { values, ...(Object.keys(entries).length === 0 ? {} : { groups: entries }) };
}

/** The snapshot with each system replaced by its scratch copy and each webhook without a rate limit. */
function scratchSnapshot(snapshot: Snapshot, scratches: ReadonlyMap<string, ScratchSystem>): Snapshot {
  const systems = frozenMap(
    [...snapshot.systems].map(([id, entry]): [string, SystemEntry] => [
      id,
      // The real connector's capabilities stay: the runtime answers as it would for the real system.
      Object.freeze({ ...entry, definition: deepFreeze(scratches.get(id)!.definition) }),
    ]),
  );
  const webhooks = frozenMap(
    [...snapshot.webhooks].map(([id, entry]): [string, WebhookEntry] => {
      if (entry.definition.rateLimit === undefined) return [id, entry];
      const { rateLimit: _unlimited, ...definition } = entry.definition;
      return [id, Object.freeze({ ...entry, definition: deepFreeze(definition) })];
    }),
  );
  return Object.freeze({ ...snapshot, systems, webhooks });
}
