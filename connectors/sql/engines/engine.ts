/**
 * What Syncline knows about one database engine, in one place: how Knex opens it and sets up each
 * session, what it can do (row locks, UPDATE … RETURNING), how it takes times, and the SQL it needs
 * to mean the same thing as the JS evaluator where engines differ. The SQL connector (sql-connection.ts
 * and the filter compiler) and the runtime database (runtime/database/open-database.ts, the queue)
 * both read it. One module per engine — sqlite.ts, postgres.ts, mysql.ts — and a frozen registry
 * (index.ts); a new engine is one new module.
 *
 * Sessions run in UTC everywhere, so times need no conversion beyond the form they are bound in.
 */
import type { Knex } from 'knex';
import type { SystemLimits } from '../../../definitions/system-limits.js';
import type { FieldType } from '../../../definitions/types.js';
import type { ConnectionContext } from '../../connection.js';
import { wholeNumberText } from '../../records/field-values.js';
import type { DriverSession } from '../read-only-session.js';
import type { SqlFragment } from '../sql-fragment.js';

export type EngineName = 'sqlite' | 'postgres' | 'mysql';

/**
 * The pools of a System: `data` for writes (untimed), `read` for reads and counts (stopped at
 * limits.statementTimeout), `query` for free queries (read-only at the session level, one
 * connection per free query that may run at once).
 */
export type PoolPurpose = 'data' | 'read' | 'query';

/** Where the runtime database is: an SQLite file, or a server URL (its scheme already the driver's). */
export type RuntimeTarget = { filename: string } | { url: string };

export interface RuntimeOptions {
  /** Most pooled connections of a server engine. */
  poolSize: number;
  /** How long SQLite waits for another writer, in ms. */
  busyTimeoutMs: number;
  /**
   * Sessions that refuse every write, for a command that only reads the runtime database (a dry
   * run reading a record store): the SQLite file opened read-only, server sessions read-only.
   */
  readOnly?: boolean;
}

export interface Engine {
  readonly name: EngineName;
  /** For messages: 'PostgreSQL'. */
  readonly label: string;
  /** The names a System's `client` setting gives it (the connector's spec accepts these). */
  readonly clients: readonly string[];

  // Sessions of a System's pools (sql-connection.ts opens them).

  /** The Knex configuration of one pool of a System, from its `connection` settings. */
  systemConfig(settings: Record<string, unknown>, context: ConnectionContext, purpose: PoolPurpose, limits: SystemLimits): Knex.Config;
  /** Free queries of a System that run at once. */
  queryConcurrency(limits: SystemLimits): number;
  /** Whether reads get a pool of their own, or share the `data` pool. */
  hasOwnReadPool(settings: Record<string, unknown>, context: ConnectionContext): boolean;
  /**
   * A read-only session for free queries on a raw connection of the `query` pool, its statements
   * together bounded by `timeoutMs` (read-only-session.ts).
   */
  readOnlySession(connection: unknown, timeoutMs: number | undefined): DriverSession;
  /** Whether raw statements number their placeholders (`$1`, `$2`) rather than writing `?`. */
  readonly numberedPlaceholders: boolean;
  /**
   * A free query's statement wrapped to answer at most `limit` rows after skipping `offset` (both
   * placeholders); newlines around the statement, so a trailing `--` comment in it cannot swallow
   * the wrapper.
   */
  pageStatement(statement: string, limit: string, offset: string): string;
  /** What the wrapper's limit is bound to when there is none. */
  readonly noLimit: number | bigint | null;
  /**
   * Whether the driver steps a statement ahead of the rows taken from it (node-sqlite3's worker
   * thread), so a free query bounds it with a LIMIT of its own.
   */
  readonly rowsRunAhead: boolean;
  /** Refuses, before a pool is opened, a System that cannot be reached (an SQLite file that is not there). */
  assertReachable(settings: Record<string, unknown>, context: ConnectionContext, systemId: string): void;

  // The runtime database (runtime/database/open-database.ts).

  /** The Knex configuration of the runtime database. */
  runtimeConfig(target: RuntimeTarget, options: RuntimeOptions): Knex.Config;
  /** Why the server cannot hold the runtime database (it lacks SKIP LOCKED), or undefined; runs one statement either way. */
  unsupportedServer(knex: Knex): Promise<string | undefined>;

  // What the engine can do.

  /**
   * Whether SELECT … FOR UPDATE locks rows. SQLite has none: it has one writer at a time, so a
   * write transaction (which begins IMMEDIATE) already keeps every other writer out.
   */
  readonly rowLocks: boolean;
  /**
   * Whether INSERT and UPDATE … RETURNING exist (through Knex too), and an UPDATE may read its own
   * table in a subquery. Without them a write reads its rows back in a second statement.
   */
  readonly returning: boolean;
  /** How a transaction that writes begins (its isolation level). */
  readonly writeTransaction: Knex.TransactionConfig;
  /** A time as a value to bind (times are stored in UTC with millisecond precision). */
  databaseTime(time: Date): Date | string;
  /** How a boolean is bound. */
  booleanBinding(flag: boolean): boolean | number;
  /** A System's DateTime value (ISO 8601 in UTC) as bound in a write or a comparison. */
  dateTimeText(iso: string): string;
  /**
   * Whether an integer past 64 bits is stored rounded, as a double, instead of being refused:
   * SQLite's INTEGER does so; a server's BIGINT refuses it, its NUMERIC holds it.
   */
  readonly roundsWideIntegers: boolean;
  /** Whether text and JSON may hold the NUL character (U+0000); PostgreSQL refuses it. */
  readonly holdsNul: boolean;
  /** The rows of a `knex.raw` SELECT, which each driver answers in its own shape. */
  rowsOf(result: unknown): Array<Record<string, unknown>>;

  // SQL that means the same as the JS evaluator (connectors/sql/sql-dialect.ts says what each is for).

  /** A Boolean column is true. */
  isTrue(expression: SqlFragment): SqlFragment;
  /**
   * How text is compared exactly (by code point, case- and trailing-space-sensitively):
   * - `plain`: `=` and `<>` already are exact (PostgreSQL's deterministic collations), and the
   *   plain form keeps indexes usable; ordering still needs `binaryText`.
   * - `binary`: always through `binaryText`.
   * - `binary-after-plain`: through `binaryText`, which no index serves, so an `=` goes with the
   *   plain comparison too, which the column's index can narrow first (MariaDB's collations may
   *   match more than the exact text, never less).
   */
  readonly textEquality: 'plain' | 'binary' | 'binary-after-plain';
  /** `expression` compared and ordered by code point, case- and trailing-space-sensitively. */
  binaryText(expression: SqlFragment): SqlFragment;
  /** A bound text value on the right-hand side of a `binaryText` comparison. */
  binaryTextValue(bound: string): SqlFragment;
  castText(expression: SqlFragment): SqlFragment;
  castNumber(expression: SqlFragment): SqlFragment;
  /**
   * A bound numeric text as the exact number it spells, for a comparison with a numeric column:
   * what a double cannot hold (an id past 2^53, a long decimal) is not rounded on the way.
   */
  exactNumber(text: string): SqlFragment;
  /** A number bound for a comparison with a numeric column. */
  numberValue(number: number): SqlFragment;
  /**
   * A column of a declared field as a SELECT reads it, `AS` the given name: the column itself, or
   * where the driver would round what the column holds (node-sqlite3 reads every integer as a
   * double), an expression that reads such a value as its exact text.
   */
  readColumn(column: SqlFragment, as: SqlFragment, type: FieldType): SqlFragment;
  /** `YYYY-MM-DD`, as Date fields are read. */
  isoDateText(expression: SqlFragment): SqlFragment;
  /** `YYYY-MM-DDTHH:MM:SS.mmmZ` in UTC, as DateTime fields are read (JS `toISOString`). */
  isoDateTimeText(expression: SqlFragment): SqlFragment;
  /** A Date field compared with a `YYYY-MM-DD` value. */
  dateOperands(expression: SqlFragment, day: string): [SqlFragment, SqlFragment];
  /** A DateTime field compared with an instant. */
  dateTimeOperands(expression: SqlFragment, instant: Date): [SqlFragment, SqlFragment];
  /** JS `trim()`: the same set of whitespace characters, bound as data. */
  jsTrim(expression: SqlFragment): SqlFragment;
  charLength(expression: SqlFragment): SqlFragment;
  /**
   * What follows ASC or DESC so NULLs sort first ascending and last descending, as they do on
   * SQLite and MariaDB by themselves; empty there.
   */
  nullsOrder(direction: 'asc' | 'desc'): string;
}

/** JS `String.prototype.trim` removes exactly these (WhiteSpace and LineTerminator). */
export const JS_WHITESPACE =
  '\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The text of a whole number a 64-bit integer holds (what a BIGINT column can hold), trimmed; else undefined. */
export function int64Text(text: string): string | undefined {
  const whole = wholeNumberText(text);
  // 2^63 has 19 digits: a longer number is out of range, and never given to BigInt.
  if (whole === undefined || whole.length > 20) return undefined;
  const value = BigInt(whole);
  return value >= INT64_MIN && value <= INT64_MAX ? whole : undefined;
}

function ignore(): void {}

/**
 * Knex's log, silenced: Knex would print pool errors to the console itself; they reach the caller
 * as errors instead (the connector's ConnectorErrors with the driver error as cause), and the
 * runtime logs those.
 */
export const quietLog = { warn: ignore, error: ignore, deprecate: ignore, debug: ignore };

/** What the Knex configurations of a System's pools share. */
export const systemCommonConfig = { compileSqlOnError: false, acquireConnectionTimeout: 30_000, log: quietLog } as const;

/** The callback of a Knex pool's `afterCreate`. */
export type AfterCreateDone = (error: Error | null, connection?: unknown) => void;
