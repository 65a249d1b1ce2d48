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

/** The engine of a System's `client` setting (spec.ts lists the names it accepts); SQLite when absent. */
export function engineOfClient(client: unknown): Engine {
  switch (client) {
    case 'pg':
    case 'postgres':
    case 'postgresql':
      return postgres;
    case 'mysql':
    case 'mysql2':
    case 'mariadb':
      return mysql;
    default:
      return sqlite;
  }
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
