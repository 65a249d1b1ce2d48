/**
 * MariaDB and MySQL (mysql2). Sessions:
 * - Every session: time zone UTC; dates and times read as text in UTC (`dateStrings`); utf8mb4;
 *   big integers as numbers when safe; backslash escapes on, since the driver escapes bound values
 *   with backslashes (a server running NO_BACKSLASH_ESCAPES would otherwise misread them); one
 *   statement per call.
 * - System pools: the `data` pool runs READ COMMITTED and counts affected (not found) rows, for the
 *   writes. The `read` and `query` pools stop a statement at limits.statementTimeout
 *   (statement-timeout.ts). The `query` pool (free queries) is read-only for the whole session.
 * - The runtime database: a pool; writes run READ COMMITTED (runtime/database/write-transaction.ts).
 *   The server must know SKIP LOCKED (MariaDB 10.6, MySQL 8.0).
 *
 * No UPDATE … RETURNING; booleans are 0/1; DATETIME values are bound as `YYYY-MM-DD HH:MM:SS.mmm`.
 */
import type { Duplex } from 'node:stream';
import type { Knex } from 'knex';
import type { SystemLimits } from '../../../definitions/system-limits.js';
import type { ConnectionContext } from '../../connection.js';
import { sql, value, type SqlFragment } from '../sql-fragment.js';
import { leadingKeyword } from '../statement-text.js';
import { guardDriverStream, mysqlFraming, poolAnswerLimits } from './answer-guard.js';
import { JS_WHITESPACE, quietLog, systemCommonConfig, type AfterCreateDone, type Engine, type PoolPurpose } from './engine.js';
import { mysqlSession, type MysqlConnection as MysqlSessionConnection } from './mysql-read-only-session.js';
import { setMysqlStatementTime } from './mysql-statement-time.js';
import { serverConnection, serverPool, type ServerSettings } from './server-settings.js';

interface MysqlConnection {
  query(sql: string, callback: (error: Error | null) => void): void;
  /** mysql2's socket (or TLS stream), once connected. */
  stream?: Duplex;
}

/** Every session: UTC, and backslash escapes on whatever the server's default sql_mode. */
const SESSION_SETUP =
  "SET SESSION time_zone = '+00:00', SESSION sql_mode = TRIM(BOTH ',' FROM REPLACE(CONCAT(',', @@SESSION.sql_mode, ','), ',NO_BACKSLASH_ESCAPES,', ','))";

/** `YYYY-MM-DD HH:MM:SS.mmm` in UTC: how MariaDB/MySQL take a DATETIME value. */
export function mysqlDateTime(instant: Date): string {
  return instant.toISOString().replace('T', ' ').replace('Z', '');
}

function systemAfterCreate(purpose: PoolPurpose, limits: SystemLimits) {
  const statements = [
    SESSION_SETUP,
    // Free queries: writes and DDL refused for the whole session (a READ ONLY transaction alone
    // would let DDL commit implicitly); a derived table keeps its ORDER BY only when it is not
    // merged into the outer query (pageStatement wraps a WITH in one).
    ...(purpose === 'query' ? ['SET SESSION TRANSACTION READ ONLY', "SET SESSION optimizer_switch = 'derived_merge=off'"] : []),
    // Writes: a match lookup made after waiting for another write's lock must see what that
    // write committed, which REPEATABLE READ's snapshot (taken at the first read) would hide.
    ...(purpose === 'data' ? ['SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED'] : []),
  ];
  const answerLimits = poolAnswerLimits(purpose, limits);
  return (connection: MysqlConnection, done: AfterCreateDone): void => {
    // Once the session is set up, every answer is measured on its way in (answer-size.ts).
    const ready = (): void => done(guardDriverStream('mysql2', connection.stream, mysqlFraming(answerLimits)), connection);
    const next = (index: number): void => {
      const statement = statements[index];
      if (statement !== undefined) {
        connection.query(statement, (error) => (error ? done(error, connection) : next(index + 1)));
        return;
      }
      if (purpose === 'data') {
        ready();
        return;
      }
      setMysqlStatementTime(connection, limits.statementTimeoutMs).then(ready, (error: Error) => done(error, connection));
    };
    next(0);
  };
}

function isoDateTimeText(expression: SqlFragment): SqlFragment {
  return sql`CONCAT(DATE_FORMAT(${expression}, '%Y-%m-%dT%H:%i:%s.'), LPAD(FLOOR(MICROSECOND(${expression}) / 1000), 3, '0'), 'Z')`;
}

export const mysql = Object.freeze<Engine>({
  name: 'mysql',
  label: 'MariaDB/MySQL',
  clients: Object.freeze(['mysql', 'mysql2', 'mariadb']),

  systemConfig(raw: Record<string, unknown>, _context: ConnectionContext, purpose: PoolPurpose, limits: SystemLimits): Knex.Config {
    const settings = raw as ServerSettings;
    return {
      ...systemCommonConfig,
      client: 'mysql2',
      connection: {
        ...(settings.url === undefined ? serverConnection(settings) : { uri: settings.url }),
        ...(settings.ssl ? { ssl: {} } : {}),
        timezone: 'Z',
        dateStrings: true,
        supportBigNumbers: true,
        bigNumberStrings: false,
        // JSON columns as their text, which a Json field parses keeping whole numbers past 2^53
        // (records/exact-json.ts); mysql2's own parse rounds them on Node 20.
        jsonStrings: true,
        charset: 'utf8mb4',
        // Affected rows, not found rows: an insert whose ON DUPLICATE KEY UPDATE changed nothing
        // then counts 0, which tells the writes (conflict-insert.ts) it met an existing record.
        ...(purpose === 'data' ? { flags: '-FOUND_ROWS' } : {}),
      } as Knex.MySql2ConnectionConfig,
      pool: { ...serverPool(settings, purpose, limits), afterCreate: systemAfterCreate(purpose, limits) },
    };
  },
  queryConcurrency: (limits: SystemLimits) => limits.concurrentQueries,
  hasOwnReadPool: () => true,
  numberedPlaceholders: false,
  pageStatement(statement: string, limit: string, offset: string): string {
    // A parenthesized query keeps its ORDER BY under the LIMIT; a WITH cannot stand in parentheses.
    const outer =
      leadingKeyword(statement, 'mysql') === 'WITH' ? `SELECT * FROM (\n${statement}\n) AS syncline_query` : `(\n${statement}\n)`;
    return `${outer} LIMIT ${limit} OFFSET ${offset}`;
  },
  // MariaDB has no "no limit"; its documentation gives the largest value as the way to say it.
  noLimit: 18446744073709551615n,
  rowsRunAhead: false,
  readOnlySession: (connection: unknown, timeoutMs: number | undefined) => mysqlSession(connection as MysqlSessionConnection, timeoutMs),
  assertReachable: () => undefined,

  runtimeConfig(target, options): Knex.Config {
    if (!('url' in target)) throw new TypeError('the MariaDB/MySQL runtime database is a URL, not a file');
    return {
      client: 'mysql2',
      connection: {
        uri: target.url,
        timezone: 'Z',
        dateStrings: true,
        charset: 'utf8mb4',
        supportBigNumbers: true,
      } as Knex.MySql2ConnectionConfig,
      log: quietLog,
      pool: {
        min: 0,
        max: options.poolSize,
        afterCreate(connection: MysqlConnection, done: AfterCreateDone) {
          connection.query(SESSION_SETUP, (error) => {
            if (error || !options.readOnly) done(error, connection);
            else connection.query('SET SESSION TRANSACTION READ ONLY', (readOnly) => done(readOnly, connection));
          });
        },
      },
    };
  },
  async unsupportedServer(knex: Knex): Promise<string | undefined> {
    const [rows] = (await knex.raw('SELECT VERSION() AS version')) as [Array<{ version: string }>];
    const version = rows[0]?.version ?? '';
    const [major = 0, minor = 0] = version.split(/[.-]/).map(Number);
    const mariadb = /mariadb/i.test(version);
    const supported = mariadb ? major > 10 || (major === 10 && minor >= 6) : major >= 8;
    if (supported) return undefined;
    return `runs ${mariadb ? 'MariaDB' : 'MySQL'} ${version}; Syncline needs MariaDB 10.6 or MySQL 8.0 or later (for SELECT … FOR UPDATE SKIP LOCKED)`;
  },

  rowLocks: true,
  returning: false,
  // SELECT … FOR UPDATE then locks the rows it returns and no gaps between them (REPEATABLE READ
  // would also lock index gaps and hold up concurrent inserts).
  writeTransaction: Object.freeze({ isolationLevel: 'read committed' }),
  databaseTime: (time: Date) => time,
  booleanBinding: (flag: boolean) => (flag ? 1 : 0),
  dateTimeText: (iso: string) => mysqlDateTime(new Date(iso)),
  roundsWideIntegers: false,
  holdsNul: true,
  rowsOf: (result: unknown) => (result as [Array<Record<string, unknown>>, unknown])[0],

  isTrue: (expression: SqlFragment) => sql`(${expression} <> ${value(0)})`,
  textEquality: 'binary-after-plain',
  // BINARY comparison: no PAD SPACE, no case folding, UTF-8 byte order = code point order.
  binaryText: (expression: SqlFragment) => sql`CAST(CONVERT(${expression} USING utf8mb4) AS BINARY)`,
  binaryTextValue: (bound: string) => sql`CAST(${value(bound)} AS BINARY)`,
  castText: (expression: SqlFragment) => sql`CAST(${expression} AS CHAR)`,
  // 65 digits, 30 of them after the point: any BIGINT, and decimals as long as a DECIMAL column holds.
  exactNumber: (text: string) => sql`CAST(${value(text)} AS DECIMAL(65,30))`,
  readColumn: (column: SqlFragment, as: SqlFragment) => sql`${column} as ${as}`,
  numberValue: (number: number) => value(number),
  castNumber: (expression: SqlFragment) => sql`CAST(${expression} AS DOUBLE)`,
  isoDateText: (expression: SqlFragment) => sql`DATE_FORMAT(${expression}, '%Y-%m-%d')`,
  isoDateTimeText,
  dateOperands: (expression: SqlFragment, day: string): [SqlFragment, SqlFragment] => [expression, sql`CAST(${value(day)} AS DATE)`],
  dateTimeOperands: (expression: SqlFragment, instant: Date): [SqlFragment, SqlFragment] => [expression, value(mysqlDateTime(instant))],
  jsTrim(expression: SqlFragment): SqlFragment {
    const run = `[${JS_WHITESPACE}]+`;
    return sql`REGEXP_REPLACE(${expression}, ${value(`^${run}|${run}$`)}, '')`;
  },
  charLength: (expression: SqlFragment) => sql`CHAR_LENGTH(${expression})`,
  nullsOrder: () => '',
});
