/**
 * The parts every read of an object shares: its table as `r`, the columns of its declared fields,
 * field paths of filters and orders resolved to columns (a group field `addresses.main.city` to a
 * correlated subquery on the child table), and the WHERE clause from the filter and the id.
 *
 * Group fields in filters and orders: `group.type.field` is the value of that field in the group
 * entry of that type — exactly what the record carries at that path, so the JS evaluator and the
 * database agree, and a record without such an entry has NULL there (`addresses.invoice.city IS
 * NULL` holds for it). The subquery takes one row: (foreign key, type) is expected to be unique.
 * A path without the type (`addresses.city`, "any address") is refused with a hint, because
 * records have no value at that path and the evaluator would always see null.
 */
import type { Knex } from 'knex';
import type { SystemLimits } from '../../definitions/system-limits.js';
import type { FieldType } from '../../definitions/types.js';
import type { OrderTerm } from '../../definitions/order/parse-order.js';
import type { ReadRequest } from '../connection.js';
import { compareWithConstant } from './compare-column.js';
import { compileFilter } from './compile-filter.js';
import type { Engine } from './engines/index.js';
import type { ColumnOperand } from './filter-operand.js';
import { checkId } from '../records/record-id.js';
import { groupParentKey, resolveFieldPath, type SqlObject } from './object-model.js';
import { column, orderTerm } from './sql-dialect.js';
import { and, fixedText, identifier, join, sql, toRaw, value, type SqlFragment } from './sql-fragment.js';
import { encodeValue } from './value-codec.js';

export interface ObjectScope {
  knex: Knex;
  engine: Engine;
  object: SqlObject;
  /** The system's limits on the read pool, whose statements stop at limits.statementTimeout. */
  limits?: SystemLimits;
}

/** The column (or group subquery) a field path stands for. */
export function fieldColumn(scope: ObjectScope, path: readonly string[]): ColumnOperand {
  const reference = resolveFieldPath(scope.object, path);
  const label = path.join('.');
  if (reference.kind === 'field') return { kind: 'column', sql: column('r', reference.field.name), type: reference.field.type, label };
  const { group, type, field } = reference;
  const parentKey = groupParentKey(scope.object);
  const subquery = sql`(SELECT ${column('g', field.name)} FROM ${identifier(group.table)} AS g WHERE ${column('g', group.foreignKey)} = ${column('r', parentKey)} AND ${column('g', group.typeField)} = ${value(type)} LIMIT 1)`;
  return { kind: 'column', sql: subquery, type: field.type, label };
}

/** The id checked as every connector checks it (records/record-id.ts), its values as the engine stores them; throws what a read by it answers. */
export function checkSqlId(engine: Engine, object: SqlObject, id: Readonly<Record<string, unknown>>): void {
  checkId(object, id, (type, raw, target) => encodeValue(type, raw, { ...target, engine }));
}

/** `field = value` for each key field, the id checked first (checkSqlId). */
export function idCondition(scope: ObjectScope, id: Readonly<Record<string, unknown>>): SqlFragment {
  const { object } = scope;
  checkSqlId(scope.engine, object, id);
  return and(object.key.map((name) => compareWithConstant(scope.engine, fieldColumn(scope, [name]), '=', id[name])));
}

/** The WHERE clause of a read or count: the filter and the id, both optional. */
export function whereClause(scope: ObjectScope, request: Pick<ReadRequest, 'filter' | 'placeholders' | 'id'>): SqlFragment {
  const parts: SqlFragment[] = [];
  if (request.filter !== undefined) {
    parts.push(
      compileFilter(request.filter, {
        engine: scope.engine,
        column: (path) => fieldColumn(scope, path),
        ...(request.placeholders === undefined ? {} : { placeholders: request.placeholders }),
      }),
    );
  }
  if (request.id !== undefined) parts.push(idCondition(scope, request.id));
  return and(parts);
}

export interface ResolvedOrder {
  terms: Array<{ column: ColumnOperand; direction: 'asc' | 'desc'; field: string | null }>;
}

/** The requested order, then the key fields not in it, so that pages never overlap or miss a record. */
export function resolveOrder(scope: ObjectScope, order: readonly OrderTerm[] = []): ResolvedOrder {
  const terms = order.map((term) => ({
    column: fieldColumn(scope, term.field),
    direction: term.direction,
    field: term.field.length === 1 ? term.field[0]! : null,
  }));
  for (const key of scope.object.key) {
    if (!terms.some((term) => term.field === key)) terms.push({ column: fieldColumn(scope, [key]), direction: 'asc', field: key });
  }
  return { terms };
}

export function orderByClause(scope: ObjectScope, order: ResolvedOrder): SqlFragment {
  return join(
    order.terms.map((term) => orderTerm(scope.engine, term.column.type ?? 'String', term.column.sql, term.direction)),
    ', ',
  );
}

/**
 * A declared field of the row `alias` as the engine reads it (engine.readColumn: on SQLite an
 * integer past 2^53 as its exact text), named `as`.
 */
export function readField(engine: Engine, alias: string, name: string, type: FieldType, as: string = name): SqlFragment {
  return engine.readColumn(identifier(`${alias}.${name}`), identifier(as), type);
}

/** The declared fields `names` of `object`'s row `alias`, each as the engine reads it. */
export function readFields(scope: ObjectScope, alias: string, names: Iterable<string>): SqlFragment {
  const { engine, object } = scope;
  return join(
    [...names].map((name) => readField(engine, alias, name, object.fields.get(name)?.type ?? 'String')),
    ', ',
  );
}

/** Objects belong to one connection, so one dialect: their SELECT text is the same for every read. */
const selectTexts = new WeakMap<SqlObject, { exact: SqlFragment; plain: SqlFragment }>();

/**
 * `SELECT <declared fields> FROM <table> AS r`, compiled by Knex once per object: `exact` reads
 * each field as the engine reads it exactly (readField), `plain` is the columns as they are, for
 * a derived table that is ordered and joined before its fields are read (group-entries.ts).
 */
export function selectRecords(scope: ObjectScope, reading: 'exact' | 'plain' = 'exact'): SqlFragment {
  let select = selectTexts.get(scope.object);
  if (select === undefined) {
    const { knex, object } = scope;
    const fields = [...object.fields.keys()];
    select = {
      exact: fixedText(
        toRaw(knex, sql`select ${readFields(scope, 'r', fields)} from ${identifier(object.table)} as ${identifier('r')}`).toSQL(),
      ),
      plain: fixedText(
        knex
          .from({ r: object.table })
          .select(fields.map((name) => `r.${name}`))
          .toSQL(),
      ),
    };
    selectTexts.set(scope.object, select);
  }
  return select[reading];
}
