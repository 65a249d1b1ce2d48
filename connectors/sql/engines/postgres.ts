/**
 * PostgreSQL (pg). Sessions:
 * - Every session: time zone UTC. On a System, `date` columns are read as `YYYY-MM-DD` text and
 *   `timestamp` (without time zone) as UTC, never in the process's local time zone.
 * - System pools: `read` and `query` sessions stop a statement at limits.statementTimeout
 *   (`statement_timeout`, statement-timeout.ts); `query` sessions (free queries) are read-only by
 *   default (`default_transaction_read_only`), and name themselves `syncline-query`.
 * - The runtime database: a pool; `timestamptz` is read as a Date. Claiming needs SKIP LOCKED (9.5).
 *
 * Booleans are bound as booleans; NULLs sort last ascending unless told otherwise, so ordering
 * says NULLS FIRST / NULLS LAST to sort as the other engines do.
 */
import { createRequire } from 'node:module';
import type { Duplex } from 'node:stream';
import type { Knex } from 'knex';
import type { SystemLimits } from '../../../definitions/system-limits.js';
import type { ConnectionContext } from '../../connection.js';
import { parseExactJson } from '../../records/exact-json.js';
import { sql, value, type SqlFragment } from '../sql-fragment.js';
import { int64Text, JS_WHITESPACE, quietLog, systemCommonConfig, type AfterCreateDone, type Engine, type PoolPurpose } from './engine.js';
import { guardDriverStream, poolAnswerLimits, postgresFraming } from './answer-guard.js';
import { pgSession, type PgClient } from './postgres-read-only-session.js';
import { serverConnection, serverPool, type ServerSettings } from './server-settings.js';

/** The connection option that sets statement_timeout for a session (statement-timeout.ts says how each engine stops a statement). */
function statementTimeoutOption(ms: number): string {
  return `-c statement_timeout=${Math.max(1, Math.round(ms))}`;
}

const PG_DATE = 1082;
const PG_TIMESTAMP = 1114;
const PG_JSON = 114;
const PG_JSONB = 3802;
/** SKIP LOCKED came with 9.5. */
const OLDEST_VERSION_NUM = 95000;

type TypeParser = (text: string) => unknown;

/**
 * A System's type parsers: dates stay text, timestamps without zone are UTC, json and jsonb keep
 * whole numbers past 2^53 as their digits (exact-json.ts) where pg's JSON.parse rounds them; the
 * rest as pg does it.
 */
const systemTypes = {
  getTypeParser(oid: number, format?: string): TypeParser {
    if (oid === PG_DATE) return (text) => text;
    if ((oid === PG_JSON || oid === PG_JSONB) && format !== 'binary') return parseExactJson;
    if (oid === PG_TIMESTAMP) {
      return (text) => {
        const date = new Date(`${text.replace(' ', 'T')}Z`);
        return Number.isNaN(date.getTime()) ? text : date;
      };
    }
    // pg is loaded by now: these parsers are asked for only by a live pg connection.
    const pg = createRequire(import.meta.url)('pg') as { types: { getTypeParser(oid: number, format?: string): TypeParser } };
    return pg.types.getTypeParser(oid, format);
  },
};

/** What a connection of pg keeps its socket (or TLS stream) in, once connected. */
interface PgConnectedClient {
  connection?: { stream?: Duplex };
}

/** Measures every answer of a System connection on its way in (answer-size.ts). */
function systemAfterCreate(purpose: PoolPurpose, limits: SystemLimits) {
  const answerLimits = poolAnswerLimits(purpose, limits);
  return (client: PgConnectedClient, done: AfterCreateDone): void =>
    done(guardDriverStream('pg', client.connection?.stream, postgresFraming(answerLimits)), client);
}

export const postgres = Object.freeze<Engine>({
  name: 'postgres',
  label: 'PostgreSQL',
  clients: Object.freeze(['pg', 'postgres', 'postgresql']),

  systemConfig(raw: Record<string, unknown>, _context: ConnectionContext, purpose: PoolPurpose, limits: SystemLimits): Knex.Config {
    const settings = raw as ServerSettings;
    const options = [
      '-c TimeZone=UTC',
      ...(purpose === 'data' ? [] : [statementTimeoutOption(limits.statementTimeoutMs)]),
      ...(purpose === 'query' ? ['-c default_transaction_read_only=on'] : []),
    ];
    return {
      ...systemCommonConfig,
      client: 'pg',
      connection: {
        ...(settings.url === undefined ? serverConnection(settings) : { connectionString: settings.url }),
        ...(settings.ssl ? { ssl: true } : {}),
        application_name: purpose === 'query' ? 'syncline-query' : 'syncline',
        options: options.join(' '),
        types: systemTypes,
      } as Knex.PgConnectionConfig,
      ...(settings.searchPath === undefined ? {} : { searchPath: [settings.searchPath] }),
      pool: { ...serverPool(settings, purpose, limits), afterCreate: systemAfterCreate(purpose, limits) },
    };
  },
  queryConcurrency: (limits: SystemLimits) => limits.concurrentQueries,
  hasOwnReadPool: () => true,
  numberedPlaceholders: true,
  pageStatement: (statement: string, limit: string, offset: string) =>
    `SELECT * FROM (\n${statement}\n) AS syncline_query LIMIT ${limit} OFFSET ${offset}`,
  noLimit: null,
  rowsRunAhead: false,
  readOnlySession: (connection: unknown, timeoutMs: number | undefined) => pgSession(connection as PgClient, timeoutMs),
  assertReachable: () => undefined,

  runtimeConfig(target, options): Knex.Config {
    if (!('url' in target)) throw new TypeError('the PostgreSQL runtime database is a URL, not a file');
    return {
      client: 'pg',
      connection: {
        connectionString: target.url,
        application_name: 'syncline',
        options: options.readOnly ? '-c TimeZone=UTC -c default_transaction_read_only=on' : '-c TimeZone=UTC',
      } as Knex.PgConnectionConfig,
      log: quietLog,
      pool: { min: 0, max: options.poolSize },
    };
  },
  async unsupportedServer(knex: Knex): Promise<string | undefined> {
    const result = (await knex.raw('SHOW server_version_num')) as { rows: Array<{ server_version_num: string }> };
    if (Number(result.rows[0]?.server_version_num ?? 0) >= OLDEST_VERSION_NUM) return undefined;
    return 'runs a PostgreSQL older than 9.5; Syncline needs SKIP LOCKED';
  },

  rowLocks: true,
  returning: true,
  // Its default, READ COMMITTED.
  writeTransaction: Object.freeze({}),
  databaseTime: (time: Date) => time,
  booleanBinding: (flag: boolean) => flag,
  dateTimeText: (iso: string) => iso,
  roundsWideIntegers: false,
  holdsNul: false,
  rowsOf: (result: unknown) => (result as { rows: Array<Record<string, unknown>> }).rows,

  isTrue: (expression: SqlFragment) => sql`(${expression} = ${value(true)})`,
  textEquality: 'plain',
  binaryText: (expression: SqlFragment) => sql`(CAST(${expression} AS TEXT) COLLATE "C")`,
  binaryTextValue: (bound: string) => value(bound),
  castText: (expression: SqlFragment) => sql`CAST(${expression} AS TEXT)`,
  // A whole number as BIGINT, which a bigint column's index serves; a NUMERIC bound would make
  // PostgreSQL compare the column as NUMERIC, row by row. A numeric column takes BIGINT exactly.
  exactNumber: (text: string) => {
    const whole = int64Text(text);
    return whole === undefined ? sql`CAST(${value(text)} AS NUMERIC)` : sql`CAST(${value(whole)} AS BIGINT)`;
  },
  readColumn: (column: SqlFragment, as: SqlFragment) => sql`${column} as ${as}`,
  // A parameter takes the column's type (or, in an IN list, the list's): an integer column would
  // refuse '1.5', and a BIGINT from exactNumber beside it would make the whole list BIGINT. As
  // NUMERIC it compares exactly with any numeric column (a double precision one takes it as double).
  numberValue: (number: number) => (Number.isSafeInteger(number) ? value(number) : sql`CAST(${value(number)} AS NUMERIC)`),
  castNumber: (expression: SqlFragment) => sql`CAST(${expression} AS DOUBLE PRECISION)`,
  isoDateText: (expression: SqlFragment) => sql`to_char(${expression}, 'YYYY-MM-DD')`,
  isoDateTimeText: (expression: SqlFragment) => sql`to_char(${expression}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  dateOperands: (expression: SqlFragment, day: string): [SqlFragment, SqlFragment] => [expression, sql`CAST(${value(day)} AS DATE)`],
  dateTimeOperands: (expression: SqlFragment, instant: Date): [SqlFragment, SqlFragment] => [
    expression,
    sql`CAST(${value(instant.toISOString())} AS TIMESTAMPTZ)`,
  ],
  jsTrim: (expression: SqlFragment) => sql`btrim(${expression}, ${value(JS_WHITESPACE)})`,
  charLength: (expression: SqlFragment) => sql`CHAR_LENGTH(${expression})`,
  nullsOrder: (direction: 'asc' | 'desc') => (direction === 'asc' ? 'NULLS FIRST' : 'NULLS LAST'),
});
