/**
 * The database engines, by name: a frozen map, like the connector registry. Each engine's module
 * holds everything Syncline knows about it (engine.ts lists what); adding an engine is one module
 * and one line here.
 *
 * No engine module loads its driver: Knex loads it (sqlite3, pg, mysql2) when a pool is created.
 */
import type { Engine, EngineName } from './engine.js';
import { mysql } from './mysql.js';
import { postgres } from './postgres.js';
import { sqlite } from './sqlite.js';

export type { Engine, EngineName, PoolPurpose, RuntimeOptions, RuntimeTarget } from './engine.js';

export const engines: Readonly<Record<EngineName, Engine>> = Object.freeze({ sqlite, postgres, mysql });

/** Every name a System's `client` setting may give, in the registry's order. */
export const clientNames: readonly string[] = Object.freeze(Object.values(engines).flatMap((engine) => engine.clients));

/** The engine of a System's `client` setting (one of clientNames); SQLite when absent. */
export function engineOfClient(client: unknown): Engine {
  return Object.values(engines).find((engine) => engine.clients.includes(String(client))) ?? sqlite;
}

/** The engine a Knex instance or transaction runs on (Knex's own name for its dialect). */
export function engineOfKnex(knex: { client: { dialect: string } }): Engine {
  switch (knex.client.dialect) {
    case 'postgresql':
      return postgres;
    case 'mysql':
      return mysql;
    default:
      return sqlite;
  }
}
