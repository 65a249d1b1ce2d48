/**
 * Column types shared by the migrations. Migrations that ran must keep meaning the same
 * statements, so what is here never changes; a new type gets a new function.
 *
 * - Times (see ../timestamps.ts): PostgreSQL `timestamptz(3)`, MariaDB/MySQL `DATETIME(3)`,
 *   SQLite `text` holding ISO 8601 UTC.
 * - JSON: PostgreSQL `json` (keeps the text as written, key order included; `jsonb` would
 *   reorder keys), MariaDB/MySQL `json`, SQLite `text` (a column declared `json` would get
 *   numeric affinity there).
 * - MariaDB/MySQL tables: InnoDB, utf8mb4 with binary collation, so text compares exactly as on
 *   PostgreSQL and SQLite (ids and slot keys are case-sensitive).
 */
import type { Knex } from 'knex';
import { engineOfKnex } from '../../../connectors/sql/engines/index.js';
import type { DatabaseDialect } from '../database-url.js';

/** The dialect of a Knex instance or transaction. */
export function dialectOfKnex(knex: Knex): DatabaseDialect {
  return engineOfKnex(knex).name;
}

export function timestampColumn(table: Knex.CreateTableBuilder, name: string, dialect: DatabaseDialect): Knex.ColumnBuilder {
  return table.specificType(name, { postgres: 'timestamptz(3)', mysql: 'datetime(3)', sqlite: 'text' }[dialect]);
}

export function jsonColumn(table: Knex.CreateTableBuilder, name: string, dialect: DatabaseDialect): Knex.ColumnBuilder {
  return dialect === 'sqlite' ? table.text(name) : table.json(name);
}

export function tableOptions(table: Knex.CreateTableBuilder, dialect: DatabaseDialect): void {
  if (dialect !== 'mysql') return;
  table.engine('InnoDB');
  table.charset('utf8mb4');
  table.collate('utf8mb4_bin');
}
