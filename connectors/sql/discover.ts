/**
 * Candidate objects of a database: its tables (and views) with their columns and primary keys,
 * from the catalog — `sqlite_master` and `PRAGMA table_info` (SQLite), `information_schema` of the
 * current schema (PostgreSQL) or of the current database (MariaDB/MySQL). Column types are mapped
 * to field types by name; what has no better match is a String.
 */
import type { Knex } from 'knex';
import type { FieldType } from '../../definitions/types.js';
import type { DiscoveredObject } from '../connection.js';
import type { Dialect } from './sql-dialect.js';

type Row = Record<string, unknown>;

/** A database column type (as the catalog spells it) → the field type it holds. */
export function fieldTypeOf(dialect: Dialect, columnType: string): FieldType {
  const type = columnType.trim().toLowerCase();
  if (type === 'tinyint(1)' || type.startsWith('bool')) return 'Boolean';
  if (type === 'json' || type === 'jsonb') return 'Json';
  if (type.startsWith('timestamp') || type.startsWith('datetime')) return 'DateTime';
  if (type === 'date') return 'Date';
  if (/^(tiny|small|medium|big)?int(eger)?\b|^int[248]?\b|serial|^unsigned big int/.test(type)) return 'Integer';
  // SQLite's rule: a declared type containing INT has integer affinity.
  if (dialect === 'sqlite' && type.includes('int') && !type.includes('point') && !type.includes('interval')) return 'Integer';
  if (/^(numeric|decimal|real|double|float|number|money)/.test(type)) return 'Number';
  return 'String';
}

function assemble(dialect: Dialect, columns: Row[], keys: Row[]): DiscoveredObject[] {
  const objects = new Map<string, DiscoveredObject>();
  for (const column of columns) {
    const table = String(column.table_name);
    const object = objects.get(table) ?? { name: table, options: { table }, fields: [], key: [] };
    objects.set(table, object);
    object.fields.push({
      name: String(column.column_name),
      type: fieldTypeOf(dialect, String(column.column_type ?? '')),
      nullable: String(column.is_nullable).toUpperCase() === 'YES',
    });
  }
  const ordered = [...keys].sort((a, b) => Number(a.position) - Number(b.position));
  for (const key of ordered) objects.get(String(key.table_name))?.key.push(String(key.column_name));
  return [...objects.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function discoverSqlite(knex: Knex): Promise<DiscoveredObject[]> {
  const tables = (await knex('sqlite_master').select('name').whereIn('type', ['table', 'view']).orderBy('name')) as Row[];
  const columns: Row[] = [];
  const keys: Row[] = [];
  for (const { name } of tables) {
    const table = String(name);
    // SQLite's own tables (sqlite_sequence, sqlite_stat1, …) are not data.
    if (table.startsWith('sqlite_')) continue;
    const info = (await knex.raw('PRAGMA table_info(??)', [table])) as Row[];
    for (const column of info) {
      columns.push({
        table_name: table,
        column_name: column.name,
        column_type: column.type,
        is_nullable: Number(column.notnull) === 1 || Number(column.pk) > 0 ? 'NO' : 'YES',
      });
      if (Number(column.pk) > 0) keys.push({ table_name: table, column_name: column.name, position: column.pk });
    }
  }
  return assemble('sqlite', columns, keys);
}

async function discoverPostgres(knex: Knex): Promise<DiscoveredObject[]> {
  const columns = (
    await knex.raw(
      `SELECT table_name, column_name, CASE WHEN data_type = 'USER-DEFINED' THEN udt_name ELSE data_type END AS column_type, is_nullable
       FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
    )
  ).rows as Row[];
  const keys = (
    await knex.raw(
      `SELECT k.table_name, k.column_name, k.ordinal_position AS position
       FROM information_schema.table_constraints t
       JOIN information_schema.key_column_usage k
         ON k.constraint_schema = t.constraint_schema AND k.constraint_name = t.constraint_name AND k.table_name = t.table_name
       WHERE t.constraint_type = 'PRIMARY KEY' AND t.table_schema = current_schema()`,
    )
  ).rows as Row[];
  return assemble('postgres', columns, keys);
}

async function discoverMysql(knex: Knex): Promise<DiscoveredObject[]> {
  const [columns] = (await knex.raw(
    `SELECT TABLE_NAME AS table_name, COLUMN_NAME AS column_name, COLUMN_TYPE AS column_type, IS_NULLABLE AS is_nullable
     FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION`,
  )) as [Row[]];
  const [keys] = (await knex.raw(
    `SELECT TABLE_NAME AS table_name, COLUMN_NAME AS column_name, ORDINAL_POSITION AS position
     FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND CONSTRAINT_NAME = 'PRIMARY'`,
  )) as [Row[]];
  return assemble('mysql', columns, keys);
}

export function discoverObjects(knex: Knex, dialect: Dialect): Promise<DiscoveredObject[]> {
  switch (dialect) {
    case 'sqlite':
      return discoverSqlite(knex);
    case 'postgres':
      return discoverPostgres(knex);
    case 'mysql':
      return discoverMysql(knex);
  }
}
