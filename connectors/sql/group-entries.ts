/**
 * Typed object groups on read: for one page of records, each group's entries are loaded with ONE
 * query (`WHERE foreign_key IN (<the page's keys>) AND type IN (<declared types>)`) and attached as
 * `record[group][type] = { field: value, … }`. Every record gets each group as an object, empty
 * when it has no entries; a type absent for a record is absent. Rows of undeclared types are not
 * read, and of two rows with the same (foreign key, type) the first one returned wins.
 *
 * An object with exactly one group (the common case) reads page and entries in one statement
 * instead (`joinedStatement`): the page as a derived table, LEFT JOINed to the group's rows, in
 * the page's order. That saves a round trip per page; each page row is numbered so that its joined
 * rows are told apart from another record's even when two records share a key value.
 */
import type { RecordData } from '../connection.js';
import { groupParentKey, type SqlGroup } from './object-model.js';
import { readField, readFields, type ObjectScope } from './record-query.js';
import { fixedText, identifier, join, sql, toRaw, value, type SqlFragment } from './sql-fragment.js';
import { decoderFor } from '../records/field-values.js';

const FOREIGN_KEY = '__syncline_fk';
const TYPE = '__syncline_type';
/** Number of the page row a joined row belongs to. */
const ROW = '__syncline_row';
/** Prefix of the group's columns in a joined row, apart from the record's own columns. */
const JOINED = '__syncline_g_';

/** Foreign key values of different drivers (numbers, bigint text, strings) as one map key. */
export function keyString(raw: unknown): string {
  if (raw instanceof Date) return raw.toISOString();
  if (typeof raw === 'bigint' || typeof raw === 'number') return String(raw);
  return typeof raw === 'string' ? raw : JSON.stringify(raw);
}

/** What reading a group needs besides the keys, worked out once per group rather than per page. */
interface GroupPlan {
  /** `SELECT <foreign key>, <type>, <fields> FROM <table> AS g`, compiled by Knex. */
  select: SqlFragment;
  foreignKey: SqlFragment;
  typeField: SqlFragment;
  /** The group's columns as a joined row carries them (`g.street AS __syncline_g_street`, …). */
  joinedColumns: SqlFragment;
  table: SqlFragment;
  decoders: ReadonlyArray<readonly [string, (raw: unknown) => unknown]>;
  /** Each field's name, its column in a joined row (built once: a fresh string per row is slower) and decoder. */
  joinedDecoders: ReadonlyArray<readonly [string, string, (raw: unknown) => unknown]>;
}
const plans = new WeakMap<SqlGroup, GroupPlan>();

function planOf(scope: ObjectScope, group: SqlGroup): GroupPlan {
  let plan = plans.get(group);
  if (plan === undefined) {
    const { knex, engine } = scope;
    const keyType = scope.object.fields.get(groupParentKey(scope.object))?.type ?? 'String';
    // Each column as the engine reads it exactly (readField), under the name the row carries it by.
    const columns = (rename: (name: string) => string) =>
      join(
        [
          readField(engine, 'g', group.foreignKey, keyType, FOREIGN_KEY),
          readField(engine, 'g', group.typeField, 'String', TYPE),
          ...[...group.fields.values()].map((field) => readField(engine, 'g', field.name, field.type, rename(field.name))),
        ],
        ', ',
      );
    plan = {
      select: fixedText(toRaw(knex, sql`select ${columns((name) => name)} from ${identifier(group.table)} as ${identifier('g')}`).toSQL()),
      foreignKey: fixedText(knex.raw('??', [`g.${group.foreignKey}`]).toSQL()),
      typeField: fixedText(knex.raw('??', [`g.${group.typeField}`]).toSQL()),
      joinedColumns: fixedText(
        toRaw(
          knex,
          columns((name) => JOINED + name),
        ).toSQL(),
      ),
      table: fixedText(scope.knex.raw('??', [group.table]).toSQL()),
      decoders: [...group.fields.values()].map((field) => [field.name, decoderFor(field.type)] as const),
      joinedDecoders: [...group.fields.values()].map((field) => [field.name, JOINED + field.name, decoderFor(field.type)] as const),
    };
    plans.set(group, plan);
  }
  return plan;
}

async function loadGroup(scope: ObjectScope, group: SqlGroup, keys: readonly unknown[]): Promise<Array<Record<string, unknown>>> {
  // What `whereIn` would make (it makes `1 = 0` of an empty list: nothing to read then).
  if (group.types.length === 0) return [];
  const plan = planOf(scope, group);
  const statement = sql`${plan.select} where ${plan.foreignKey} in (${join(keys.map(value), ', ')}) and ${plan.typeField} in (${join(group.types.map(value), ', ')})`;
  return scope.engine.rowsOf(await toRaw(scope.knex, statement));
}

/** Attaches the group entries of `records` (one page) in place. */
export async function attachGroups(scope: ObjectScope, records: RecordData[]): Promise<void> {
  const { object } = scope;
  if (object.groups.size === 0 || records.length === 0) return;
  const parentKey = groupParentKey(object);
  const byKey = new Map<string, RecordData>();
  for (const record of records) {
    for (const group of object.groups.values()) record[group.name] = {};
    const key = record[parentKey];
    if (key !== null && key !== undefined) byKey.set(keyString(key), record);
  }
  const keys = records.map((record) => record[parentKey]).filter((key) => key !== null && key !== undefined);
  if (keys.length === 0) return;
  for (const group of object.groups.values()) {
    for (const row of await loadGroup(scope, group, keys)) {
      const record = byKey.get(keyString(row[FOREIGN_KEY]));
      const type = String(row[TYPE]);
      const entries = record?.[group.name] as Record<string, RecordData> | undefined;
      if (entries === undefined || Object.hasOwn(entries, type)) continue;
      const entry: RecordData = {};
      for (const [name, decode] of planOf(scope, group).decoders) entry[name] = decode(row[name]);
      entries[type] = entry;
    }
  }
}

/** Identifiers of the joined statement, compiled once per object. */
const joinedNames = new WeakMap<
  ObjectScope['object'],
  { rowAll: SqlFragment; pageAll: SqlFragment; row: SqlFragment; rowNumber: SqlFragment; parentKey: SqlFragment }
>();

/**
 * The page statement `records` makes (ordered by `orderBy`, whose columns are `r.<field>`; its
 * columns plain, selectRecords(scope, 'plain'); made only when joined) with the
 * entries of the object's one group joined; undefined when the object has no group, several
 * groups, or no single declared key field to join on — those read entries with `attachGroups`.
 */
export function joinedStatement(scope: ObjectScope, records: () => SqlFragment, orderBy: SqlFragment): SqlFragment | undefined {
  const { object, knex } = scope;
  const [group, ...more] = object.groups.values();
  if (group === undefined || more.length > 0 || group.types.length === 0) return undefined;
  const [key, ...moreKeys] = object.key;
  if (key === undefined || moreKeys.length > 0 || !object.fields.has(key)) return undefined;
  let names = joinedNames.get(object);
  if (names === undefined) {
    const quote = (name: string) => fixedText(knex.raw('??', [name]).toSQL());
    names = {
      // The page's fields, read exactly only here: the derived tables keep the columns as they are,
      // so the outer ORDER BY sorts them as the page's own did (record-query.ts selectRecords).
      rowAll: fixedText(toRaw(knex, sql`${readFields(scope, 'r', object.fields.keys())}, ${identifier(`r.${ROW}`)}`).toSQL()),
      pageAll: sql`${quote('q')}.*`,
      row: quote(`r.${ROW}`),
      rowNumber: sql`row_number() over () as ${quote(ROW)}`,
      parentKey: quote(`r.${key}`),
    };
    joinedNames.set(object, names);
  }
  const plan = planOf(scope, group);
  const types = join(group.types.map(value), ', ');
  // The outer ORDER BY repeats the page's order (a derived table's order is not kept by a join),
  // then the row number keeps each record's rows together.
  return sql`select ${names.rowAll}, ${plan.joinedColumns} from (select ${names.pageAll}, ${names.rowNumber} from (${records()}) as q) as r left join ${plan.table} as g on ${plan.foreignKey} = ${names.parentKey} and ${plan.typeField} in (${types}) order by ${orderBy}, ${names.row}`;
}

/** Records of the rows of a `joinedStatement`, with their group entries attached. */
export function foldJoinedRows(
  scope: ObjectScope,
  rows: ReadonlyArray<Record<string, unknown>>,
  decodeRecord: (row: Record<string, unknown>) => RecordData,
): RecordData[] {
  const group = scope.object.groups.values().next().value as SqlGroup;
  const { joinedDecoders } = planOf(scope, group);
  const records: RecordData[] = [];
  let entries: Record<string, RecordData> = {};
  let previous: unknown;
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index]!;
    if (index === 0 || row[ROW] !== previous) {
      previous = row[ROW];
      const record = decodeRecord(row);
      entries = {};
      record[group.name] = entries;
      records.push(record);
    }
    // A record without entries has one row, its group columns NULL (the join matched nothing).
    const rawType = row[TYPE];
    if (rawType === null || rawType === undefined) continue;
    const type = String(rawType);
    if (Object.hasOwn(entries, type)) continue;
    const entry: RecordData = {};
    for (const [name, column, decode] of joinedDecoders) entry[name] = decode(row[column]);
    entries[type] = entry;
  }
  return records;
}
