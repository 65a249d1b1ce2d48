/**
 * What a value of a filter becomes in SQL: a column (a field of the record, a group field's
 * subquery, or a string function over one) with its declared type, or a constant — a literal or a
 * resolved placeholder, known when the filter is compiled and always bound.
 */
import type { FieldType } from '../../definitions/types.js';
import { ConnectorError } from '../connector-error.js';
import type { SqlFragment } from './sql-fragment.js';

export interface ColumnOperand {
  kind: 'column';
  sql: SqlFragment;
  /** The declared type; undefined for the columns of a free query, whose types are not declared. */
  type: FieldType | undefined;
  /** The field as the filter names it, for messages. */
  label: string;
}

export interface ConstantOperand {
  kind: 'constant';
  value: unknown;
}

export type Operand = ColumnOperand | ConstantOperand;

/** How the JS evaluator sees a record value of each type when it compares (see compare-values.ts). */
export type ValueClass = 'text' | 'number' | 'boolean' | 'date' | 'datetime' | 'json' | 'untyped';

export function classOf(type: FieldType | undefined): ValueClass {
  switch (type) {
    case 'String':
      return 'text';
    case 'Integer':
    case 'Number':
      return 'number';
    case 'Boolean':
      return 'boolean';
    case 'Date':
      return 'date';
    case 'DateTime':
      return 'datetime';
    case 'Json':
      return 'json';
    case undefined:
      return 'untyped';
  }
}

/** A filter construct the sql connector cannot express: HTTP 422 naming it. */
export function unsupported(construct: string): ConnectorError {
  return new ConnectorError('unsupported', `the sql connector cannot filter by ${construct}`, {
    details: { connector: 'sql', construct },
  });
}

export function describeColumn(column: ColumnOperand): string {
  return column.type === undefined ? `'${column.label}'` : `'${column.label}' (${column.type})`;
}

/**
 * Booleans and numeric text are read exactly as the JS evaluator reads them, so a compiled filter
 * and the in-memory predicate agree: the same functions, not copies.
 */
export { booleanFrom as booleanOf, numberFromText as numberOf } from '../../definitions/expression/index.js';
