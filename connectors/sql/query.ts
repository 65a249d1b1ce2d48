/**
 * Free queries (RunConnectionGetQueryData, named queries of syncs and webhooks): a statement in the
 * database's own SQL, run read-only (read-only-session.ts).
 *
 * - `#FlowFilter#` is replaced by the compiled filter with its values bound (no filter: `1=1`).
 *   The filter's fields are the statement's columns (`city`, `a.city`); their types are not
 *   declared, so comparisons follow the database's own rules there.
 * - The statement must start with SELECT, WITH, VALUES or TABLE, and be one statement; anything
 *   else is refused before it is sent — in addition to, never instead of, the database refusing
 *   writes.
 * - limit/skip wrap the statement: `SELECT * FROM (<statement>) LIMIT ? OFFSET ?` on SQLite and
 *   PostgreSQL; MariaDB ignores ORDER BY inside a derived table that is merged, so there a SELECT
 *   is parenthesized instead (`(<statement>) LIMIT ? OFFSET ?`, which keeps its order) and a WITH
 *   statement (which MariaDB cannot parenthesize) goes into a derived table on a session with
 *   derived_merge off.
 * - `INTO` anywhere in the code of the statement (not in a literal, quoted name or comment) is
 *   refused: `SELECT … INTO OUTFILE/DUMPFILE` writes a server file, `SELECT … INTO @x` a variable,
 *   PostgreSQL's `SELECT … INTO t` a table — none of them a query, and the first even in a
 *   read-only transaction.
 * - The count statement runs in the same read-only session; its first column is the total.
 * - The system's limits (definitions/system-limits.ts): at most limits.concurrentQueries run at once
 *   (query-slots.ts); the statement and its count share limits.statementTimeout; rows are taken one
 *   by one as the database produces them (read-only-session.ts) and the statement is stopped at
 *   limits.queryRows + 1 rows or limits.queryBytes of JSON, answered 'too-large' — so no statement
 *   can fill the memory. On SQLite a SELECT or VALUES statement is also wrapped in a LIMIT of
 *   queryRows + 1 (read-only-session.ts says why).
 * - Rows are mapped to the declared `columns` (found by name, then case-insensitively, because
 *   PostgreSQL folds unquoted names to lower case) and their types; without columns they are
 *   returned as the database gives them.
 */
import type { Knex } from 'knex';
import type { SystemLimits } from '../../definitions/system-limits.js';
import type { QueryRequest, QueryResult, RecordData } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { resultTooLargeError } from '../limit-errors.js';
import type { QuerySlots } from '../query-slots.js';
import { compileFilter } from './compile-filter.js';
import { toConnectorError } from './database-errors.js';
import type { Engine } from './engines/index.js';
import type { ColumnOperand } from './filter-operand.js';
import { withReadOnlySession, type Row } from './read-only-session.js';
import { identifier, text, type SqlFragment } from './sql-fragment.js';
import { keywordPosition, leadingKeyword, mainKeyword, singleStatement } from './statement-text.js';
import { decodeValue } from '../records/field-values.js';
import { wholeNumber } from '../records/read-window.js';

export interface QueryScope {
  /** The dedicated, read-only query pool. */
  knex: Knex;
  engine: Engine;
  systemId: string;
  limits: SystemLimits;
  /** Turns of the system's free queries (limits.concurrentQueries). */
  slots: QuerySlots;
}

const FLOW_FILTER = '#FlowFilter#';
const QUERY_KEYWORDS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE']);
const COLUMN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Native {
  sql: string;
  bindings: unknown[];
}

function queryColumn(path: readonly string[]): ColumnOperand {
  if (path.length > 2 || !path.every((segment) => COLUMN_NAME.test(segment))) {
    throw new ConnectorError('unknown-field', `a query filter names columns as name or table.name; '${path.join('.')}' is neither`, {
      details: { field: path.join('.') },
    });
  }
  return { kind: 'column', sql: identifier(path.join('.')), type: undefined, label: path.join('.') };
}

function filterFragment(scope: QueryScope, request: QueryRequest): SqlFragment {
  if (request.filter === undefined) return text('1=1');
  return compileFilter(request.filter, {
    engine: scope.engine,
    column: queryColumn,
    ...(request.placeholders === undefined ? {} : { placeholders: request.placeholders }),
  });
}

/** The statement with `#FlowFilter#` replaced, in the driver's placeholder syntax (`$n` on PostgreSQL). */
function substitute(scope: QueryScope, statement: string, filter: SqlFragment): Native {
  const native = scope.knex
    .raw(filter.sql, filter.bindings as Knex.RawBinding[])
    .toSQL()
    .toNative();
  const pieces = statement.split(FLOW_FILTER);
  let sql = pieces[0]!;
  const bindings: unknown[] = [];
  for (const piece of pieces.slice(1)) {
    const offset = bindings.length;
    // Fragment text holds no '$' but its placeholders (identifiers come from [A-Za-z0-9_] names).
    const renumbered = scope.engine.numberedPlaceholders
      ? native.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)
      : native.sql;
    sql += `(${renumbered})${piece}`;
    bindings.push(...native.bindings);
  }
  return { sql, bindings };
}

function checkedStatement(scope: QueryScope, statement: string, role: string): string {
  const single = singleStatement(statement, scope.engine.name);
  if (single === null) {
    throw new ConnectorError(
      'rejected',
      `system '${scope.systemId}': the ${role} holds more than one statement; a query runs exactly one`,
      { details: { system: scope.systemId } },
    );
  }
  const keyword = leadingKeyword(single, scope.engine.name);
  if (!QUERY_KEYWORDS.has(keyword)) {
    throw new ConnectorError(
      'read-only',
      `system '${scope.systemId}': the ${role} starts with ${keyword || 'nothing'}; a query must be a SELECT (or WITH, VALUES, TABLE) statement`,
      {
        details: { system: scope.systemId, keyword },
      },
    );
  }
  const into = keywordPosition(single, scope.engine.name, 'INTO');
  if (into >= 0) {
    const lines = single.slice(0, into).split('\n');
    const place = `line ${lines.length}, column ${lines.at(-1)!.length + 1}`;
    throw new ConnectorError(
      'read-only',
      `system '${scope.systemId}': the ${role} uses INTO (${place}), which writes a file, a variable or a table; a query only reads — remove the INTO clause`,
      {
        details: { system: scope.systemId, keyword: 'INTO' },
      },
    );
  }
  return single;
}

function paged(scope: QueryScope, query: Native, limit: number | undefined, skip: number | undefined): Native {
  if (limit === undefined && skip === undefined) return query;
  const engine = scope.engine;
  const placeholder = (index: number): string => (engine.numberedPlaceholders ? `$${query.bindings.length + index}` : '?');
  return {
    sql: engine.pageStatement(query.sql, placeholder(1), placeholder(2)),
    bindings: [...query.bindings, limit ?? engine.noLimit, skip ?? 0],
  };
}

/** The record of a row: the declared columns (found by name, then case-insensitively) and their types, or the row as it is. */
function rowMapper(columns: QueryRequest['columns']): (row: Row) => RecordData {
  if (columns === undefined || columns.length === 0) {
    return (row) => Object.fromEntries(Object.entries(row).map(([name, raw]) => [name, decodeValue(undefined, raw)]));
  }
  return (row) => {
    const lowered = new Map(Object.keys(row).map((name) => [name.toLowerCase(), name]));
    const record: RecordData = {};
    for (const { name, type } of columns) {
      const source = Object.hasOwn(row, name) ? name : lowered.get(name.toLowerCase());
      // A declared column the statement does not return is a mistake in the request, not a null.
      if (source === undefined) {
        throw new ConnectorError(
          'invalid-value',
          `column '${name}' is not in the query result; the result has ${Object.keys(row).join(', ')}`,
          { details: { column: name } },
        );
      }
      record[name] = decodeValue(type, row[source]);
    }
    return record;
  };
}

/**
 * Bytes of a record in the JSON answer (and a comma), or endless once it is sure to be over
 * `budget`. BigInts, which JSON.stringify refuses, count as their digits. Every character of a
 * string takes a byte at least: strings longer than the budget together are over it without their
 * JSON being built, which would take several times their size.
 */
function jsonBytes(record: RecordData, budget: number): number {
  let least = 0;
  for (const value of Object.values(record)) if (typeof value === 'string') least += value.length;
  if (least > budget) return Number.POSITIVE_INFINITY;
  try {
    return Buffer.byteLength(JSON.stringify(record, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))) + 1;
  } catch (error) {
    // Nested too deep for JSON.stringify (a Json column thousands of levels deep) is no measure
    // of size: the record is counted by its strings, and the answer that holds it says what it is
    // (422 unanswerable-value) instead of calling a 16 KB row over the limit.
    if (error instanceof RangeError && /call stack/i.test(error.message)) return least + 1;
    if (error instanceof RangeError) return Number.POSITIVE_INFINITY;
    throw error;
  }
}

/**
 * The total a count statement answers: its one row's first column, a whole number of 0 or more
 * (or its digits as text, as MariaDB gives a COUNT); no row or NULL is 0. Anything else — several
 * rows (`SELECT id FROM …`: its first id is no total), a value that is not a count — is a mistake
 * in the statement, said as such rather than answered as a total.
 */
function countOf(scope: QueryScope, rows: readonly Row[]): number {
  if (rows.length > 1) {
    throw new ConnectorError(
      'rejected',
      `system '${scope.systemId}': the count statement answers ${rows.length} rows; it must answer one row with the total in its first column, as SELECT COUNT(*) … does`,
      { details: { system: scope.systemId } },
    );
  }
  const first = rows[0];
  const value = first === undefined ? null : Object.values(first)[0];
  if (value === null || value === undefined) return 0;
  const total = typeof value === 'bigint' ? Number(value) : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof total === 'number' && Number.isSafeInteger(total) && total >= 0) return total;
  const shown = typeof value === 'string' ? `'${value.slice(0, 40)}'` : typeof value === 'object' ? 'not a number' : String(value);
  throw new ConnectorError(
    'rejected',
    `system '${scope.systemId}': the count statement answers ${shown} in its first column, not a whole number of 0 or more; it must answer the total there, as SELECT COUNT(*) … does`,
    { details: { system: scope.systemId } },
  );
}

export async function runQuery(scope: QueryScope, request: QueryRequest): Promise<QueryResult> {
  const { limits } = scope;
  const limit = wholeNumber('limit', request.limit, 0);
  const skip = wholeNumber('skip', request.skip, 0);
  const filter = filterFragment(scope, request);
  const checked = checkedStatement(scope, request.statement, 'statement');
  // SQLite's worker thread steps ahead of the rows taken: a LIMIT of queryRows + 1 bounds how far.
  // Not around a write hidden in a WITH, which would then be a syntax error, not a refused write.
  const bounded = scope.engine.rowsRunAhead && ['SELECT', 'VALUES'].includes(mainKeyword(checked, scope.engine.name));
  const bound = bounded ? Math.min(limit ?? Number.POSITIVE_INFINITY, limits.queryRows + 1) : limit;
  const statement = paged(scope, substitute(scope, checked, filter), bound === Number.POSITIVE_INFINITY ? undefined : bound, skip);
  const count =
    request.countStatement === undefined
      ? undefined
      : substitute(scope, checkedStatement(scope, request.countStatement, 'count statement'), filter);
  const toRecord = rowMapper(request.columns);
  request.signal?.throwIfAborted();
  const release = await scope.slots.acquire(request.signal);
  try {
    return await withReadOnlySession(
      scope.knex,
      scope.engine,
      async (session) => {
        const rows: RecordData[] = [];
        let bytes = 0;
        let over: 'rows' | 'bytes' | undefined;
        await session.each(statement.sql, statement.bindings, (row) => {
          request.signal?.throwIfAborted();
          if (rows.length === limits.queryRows) {
            over = 'rows';
            return false;
          }
          const record = toRecord(row);
          bytes += jsonBytes(record, limits.queryBytes - bytes);
          if (bytes > limits.queryBytes) {
            over = 'bytes';
            return false;
          }
          rows.push(record);
          return true;
        });
        if (over !== undefined) throw resultTooLargeError(scope.systemId, over, limits);
        const result: QueryResult = { rows };
        if (count !== undefined) result.total = countOf(scope, await session.all(count.sql, count.bindings));
        return result;
      },
      { timeoutMs: limits.statementTimeoutMs },
    );
  } catch (error) {
    throw toConnectorError(error, { systemId: scope.systemId, action: 'running a query', statement: true, limits, reads: true });
  } finally {
    release();
  }
}
