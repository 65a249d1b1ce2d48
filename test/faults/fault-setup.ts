/**
 * What the fault tests share: on one test database, a `work` System with tables the test fills,
 * Syncs over them, a definitions directory, and the runtime database URL the daemons are given
 * (the same server database on PostgreSQL and MariaDB; a file of its own beside the work file on
 * SQLite, where one file per writer keeps the processes from queueing on one lock).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseDatabaseUrl } from '../../runtime/database/database-url.js';
import { migrate } from '../../runtime/database/migrate.js';
import { openDatabase, type RuntimeDatabase } from '../../runtime/database/open-database.js';
import type { TestDatabase } from '../support/databases.js';

/** The work System's connection block, with an absolute SQLite path (daemons run elsewhere). */
export function workConnection(database: TestDatabase): Record<string, unknown> {
  const connection = { ...database.connection };
  if (database.engine === 'sqlite') connection.filename = join(database.baseDirectory, String(connection.filename));
  return connection;
}

export function runtimeUrl(database: TestDatabase): string {
  return database.engine === 'sqlite' ? `sqlite:${join(database.baseDirectory, 'runtime.db')}` : String(database.connection.url);
}

export async function openRuntime(database: TestDatabase): Promise<RuntimeDatabase> {
  const db = await openDatabase(parseDatabaseUrl(runtimeUrl(database)));
  await migrate(db);
  return db;
}

/** A new definitions directory holding `yaml` (the work System is prepended). */
export function writeDefinitions(database: TestDatabase, objects: string, syncs: string): string {
  const directory = mkdtempSync(join(tmpdir(), 'syncline-faults-'));
  writeFileSync(
    join(directory, 'definitions.yaml'),
    `kind: System
id: work
connector: sql
connection: ${JSON.stringify(workConnection(database))}
objects:
${objects}
---
${syncs}`,
  );
  return directory;
}

/** Polls `condition` every `everyMs` until it answers true; fails with `what` after `timeoutMs`. */
export async function waitUntil(what: string, condition: () => Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
