/**
 * The runtime database: one Knex instance for queue items, the record store and schedules.
 *
 * Every session is set up the same way, because the queue operations rely on it; each engine's
 * module says how (connectors/sql/engines/): SQLite a WAL journal, one connection whose
 * transactions begin IMMEDIATE; PostgreSQL and MariaDB/MySQL a pool, sessions in UTC, and a server
 * that knows `SKIP LOCKED`.
 *
 * Opening runs one statement, so a wrong URL, a missing server or an old version fails here with
 * a message naming the database, not at the first queue operation.
 */
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { DatabaseDialect, DatabaseLocation } from './database-url.js';
import { engines, type Engine } from '../../connectors/sql/engines/index.js';

export interface RuntimeDatabase {
  readonly knex: Knex;
  readonly dialect: DatabaseDialect;
  /** What the queue needs to know of the engine: row locks, UPDATE … RETURNING, how times are bound. */
  readonly engine: Engine;
  readonly location: DatabaseLocation;
  /** In-process signals between the queue operations and the daemon (queue/notify.ts). */
  readonly events: EventEmitter;
  /** Runs `task` when the database closes, before the pool does (a listener's own connection); answers how to cancel that. */
  onClose(task: () => Promise<void>): () => void;
  /** Runs the onClose tasks, then closes every pooled connection; safe to call twice. */
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Most pooled connections to PostgreSQL or MariaDB (default 10); SQLite always uses one. */
  poolSize?: number;
  /** How long SQLite waits for another writer before giving up, in ms (default 5000). */
  busyTimeoutMs?: number;
  /**
   * Only read (a dry run reading a record store): sessions refuse writes, and an SQLite file that
   * does not exist is an error rather than created.
   */
  readOnly?: boolean;
}

export class DatabaseOpenError extends Error {
  override name = 'DatabaseOpenError';
}

function prepareSqliteFile(location: Extract<DatabaseLocation, { dialect: 'sqlite' }>, readOnly: boolean): void {
  if (readOnly && !existsSync(location.filename)) {
    throw new DatabaseOpenError(`cannot read the runtime database ${location.display}: ${location.filename} does not exist`);
  }
  const folder = dirname(location.filename);
  if (location.createFolder) mkdirSync(folder, { recursive: true });
  else if (!existsSync(folder)) {
    throw new DatabaseOpenError(
      `cannot open the runtime database ${location.display}: the folder ${folder} does not exist; create it or choose another file`,
    );
  }
  if (existsSync(location.filename) && statSync(location.filename).isDirectory()) {
    throw new DatabaseOpenError(`cannot open the runtime database ${location.display}: ${location.filename} is a folder, not a file`);
  }
}

/** Refuses servers without `SKIP LOCKED`, which claiming needs; runs one statement either way. */
async function checkServer(knex: Knex, engine: Engine, display: string): Promise<void> {
  const unsupported = await engine.unsupportedServer(knex);
  if (unsupported !== undefined) throw new DatabaseOpenError(`the runtime database ${display} ${unsupported}`);
}

/** Opens (and for SQLite creates, unless read-only) the runtime database; no tables are created here (see migrate.ts). */
export async function openDatabase(location: DatabaseLocation, options: OpenOptions = {}): Promise<RuntimeDatabase> {
  const engine = engines[location.dialect];
  if (location.dialect === 'sqlite') prepareSqliteFile(location, options.readOnly ?? false);
  const target = location.dialect === 'sqlite' ? { filename: location.filename } : { url: location.url };
  const knex = knexFactory(
    engine.runtimeConfig(target, {
      poolSize: options.poolSize ?? 10,
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      ...(options.readOnly ? { readOnly: true } : {}),
    }),
  );
  try {
    await checkServer(knex, engine, location.display);
  } catch (error) {
    await knex.destroy();
    if (error instanceof DatabaseOpenError) throw error;
    const reason = (error as { message?: string }).message ?? String(error);
    throw new DatabaseOpenError(`cannot open the runtime database ${location.display}: ${reason}`, { cause: error });
  }

  const events = new EventEmitter();
  const closeTasks = new Set<() => Promise<void>>();
  let closing: Promise<void> | undefined;
  return {
    knex,
    dialect: location.dialect,
    engine,
    location,
    events,
    onClose(task) {
      closeTasks.add(task);
      return () => void closeTasks.delete(task);
    },
    close() {
      closing ??= (async () => {
        await Promise.allSettled([...closeTasks].map((task) => task()));
        closeTasks.clear();
        events.removeAllListeners();
        await knex.destroy();
      })();
      return closing;
    },
  };
}
