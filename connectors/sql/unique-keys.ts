/**
 * What the writes need to know about a target table that its definition does not say: the column
 * sets of its unique indexes (the primary key included), so that a write matching on exactly such
 * a set can let the index arbitrate between concurrent creates (conflict-insert.ts), and where the
 * table's match locks live (match-locks.ts). Read from the database's catalog with bound values,
 * once per connection and table (`TableCatalog`); a connection is made again when its System's
 * definition changes.
 *
 * Only indexes the conflict clause can use count: PostgreSQL's valid, immediate (not deferrable),
 * non-partial ones over plain columns; MariaDB's unique indexes without a prefix length. SQLite is
 * not asked: its writes hold the single writer lock from the lookup to the commit.
 */
import type { Knex } from 'knex';
import type { LockScope } from './match-locks.js';
import type { Dialect } from './sql-dialect.js';

/** One table's facts. */
export interface TableFacts {
  /** Where the table's match locks live: PostgreSQL the table's oid, MariaDB `schema.table`. */
  readonly lockScope: LockScope;
  /** The column sets of the unique indexes a conflict clause can arbitrate on. */
  readonly uniqueKeys: ReadonlyArray<readonly string[]>;
  /**
   * PostgreSQL: the columns of a plain text, number, boolean or date/time base type, which take a
   * value read from JSON text exactly as they take a bound one (write-many.ts batches their updates).
   */
  readonly scalarColumns?: ReadonlySet<string>;
}

/** `schema.table` → the identifier PostgreSQL's to_regclass reads (each part quoted). */
export function quotedRelation(table: string): string {
  return table
    .split('.')
    .map((part) => `"${part.replaceAll('"', '""')}"`)
    .join('.');
}

interface IndexColumn {
  index_id: string | number | null;
  column_name: string | null;
}

/** Index rows in index order → the column list of each index. */
function columnSets(rows: readonly IndexColumn[], excluded: ReadonlySet<string> = new Set()): string[][] {
  const byIndex = new Map<string, string[]>();
  for (const row of rows) {
    if (row.index_id === null || row.column_name === null) continue;
    const id = String(row.index_id);
    const columns = byIndex.get(id) ?? [];
    byIndex.set(id, columns);
    columns.push(row.column_name);
  }
  return [...byIndex.entries()].filter(([id]) => !excluded.has(id)).map(([, columns]) => columns);
}

async function postgresFacts(knex: Knex, table: string): Promise<TableFacts | undefined> {
  const { rows } = (await knex.raw(
    `SELECT t.oid::int8 AS table_id, i.indexrelid::int8 AS index_id, a.attname AS column_name
       FROM pg_catalog.pg_class t
       LEFT JOIN pg_catalog.pg_index i
         ON i.indrelid = t.oid AND i.indisunique AND i.indisvalid AND i.indimmediate AND i.indpred IS NULL AND i.indexprs IS NULL
       LEFT JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, position) ON true
       LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE t.oid = to_regclass(?)
      ORDER BY i.indexrelid, k.position`,
    [quotedRelation(table)],
  )) as { rows: Array<IndexColumn & { table_id: string | number }> };
  const first = rows[0];
  // No such table (yet): the write will say so; nothing is kept, so a table made later is seen.
  if (first === undefined) return undefined;
  const { rows: scalar } = (await knex.raw(
    `SELECT a.attname AS column_name
       FROM pg_catalog.pg_attribute a
       JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
      WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped AND t.typtype = 'b' AND t.typcategory IN ('S', 'N', 'B', 'D')`,
    [first.table_id],
  )) as { rows: Array<{ column_name: string }> };
  return {
    lockScope: Number(first.table_id),
    uniqueKeys: columnSets(rows),
    scalarColumns: new Set(scalar.map((row) => row.column_name)),
  };
}

async function mysqlFacts(knex: Knex, table: string): Promise<TableFacts> {
  const dot = table.indexOf('.');
  const [schema, name] = dot < 0 ? [null, table] : [table.slice(0, dot), table.slice(dot + 1)];
  const [rows] = (await knex.raw(
    `SELECT d.name AS schema_name, s.INDEX_NAME AS index_id, s.COLUMN_NAME AS column_name, s.SUB_PART AS sub_part
       FROM (SELECT COALESCE(?, DATABASE()) AS name) d
       LEFT JOIN information_schema.STATISTICS s ON s.TABLE_SCHEMA = d.name AND s.TABLE_NAME = ? AND s.NON_UNIQUE = 0
      ORDER BY s.INDEX_NAME, s.SEQ_IN_INDEX`,
    [schema, name],
  )) as [Array<IndexColumn & { schema_name: string | null; sub_part: number | null }>];
  // A prefix index (`UNIQUE (name(10))`) equates values the match tells apart: not an arbiter.
  const prefixed = new Set(rows.filter((row) => row.sub_part !== null && row.index_id !== null).map((row) => String(row.index_id)));
  return { lockScope: `${rows[0]?.schema_name ?? ''}.${name}`, uniqueKeys: columnSets(rows, prefixed) };
}

/** Reads the facts of `table` (PostgreSQL and MariaDB/MySQL); undefined when PostgreSQL has no such table. */
export async function readTableFacts(knex: Knex, dialect: Exclude<Dialect, 'sqlite'>, table: string): Promise<TableFacts | undefined> {
  return dialect === 'postgres' ? postgresFacts(knex, table) : mysqlFacts(knex, table);
}

/**
 * The unique key made of exactly `fields` (in any order), if the table has one. MariaDB's column
 * names ignore case; PostgreSQL's are what the catalog says.
 */
export function uniqueKeyOn(facts: TableFacts, dialect: Dialect, fields: readonly string[]): readonly string[] | undefined {
  const fold = (name: string): string => (dialect === 'mysql' ? name.toLowerCase() : name);
  const wanted = new Set(fields.map(fold));
  return facts.uniqueKeys.find((columns) => columns.length === wanted.size && columns.every((column) => wanted.has(fold(column))));
}

/** The facts of a connection's tables, each read once (a failed read is tried again next time). */
export class TableCatalog {
  private readonly facts = new Map<string, Promise<TableFacts | undefined>>();

  constructor(
    private readonly knex: () => Knex,
    private readonly dialect: Exclude<Dialect, 'sqlite'>,
  ) {}

  get(table: string): Promise<TableFacts | undefined> {
    let facts = this.facts.get(table);
    if (facts === undefined) {
      facts = readTableFacts(this.knex(), this.dialect, table).then(
        (read) => {
          if (read === undefined) this.facts.delete(table);
          return read;
        },
        (error: unknown) => {
          this.facts.delete(table);
          throw error;
        },
      );
      this.facts.set(table, facts);
    }
    return facts;
  }
}
