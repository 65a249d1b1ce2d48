/**
 * Driver errors → ConnectorErrors. The message says what happened in words a caller can act on and
 * never carries driver text, SQL or connection settings; the driver error travels as `cause` for
 * the log. Classified by the standard SQLSTATE classes (PostgreSQL, MariaDB's sqlState) and the
 * drivers' own codes (mysql2 errno, SQLite result codes).
 */
import type { SystemLimits } from '../../definitions/system-limits.js';
import { ConnectorError } from '../connector-error.js';
import { driverFailure, missingParameters } from './driver-failure.js';
import { resultTooLargeError, rowTooLargeError, statementTimeoutError } from '../limit-errors.js';
import { AnswerTooLarge, MAX_ROW_BYTES, MAX_ROW_BYTES_TEXT } from './answer-size.js';

export interface ErrorContext {
  systemId: string;
  /** What was being done, e.g. "reading Customer", "running a query". */
  action: string;
  /** A free query: a statement the database refuses is the caller's mistake ('rejected'), not ours. */
  statement?: boolean;
  /** The system's limits, for a statement the database stopped at limits.statementTimeout. */
  limits?: SystemLimits;
  /** Reading, not writing: a value over SQLite's length limit was read (answer-size.ts), not sent. */
  reads?: boolean;
}

interface DriverError {
  name?: string;
  code?: string | number;
  errno?: number;
  sqlState?: string;
  message?: string;
  detail?: string;
}

/** PostgreSQL deadlock_detected / serialization_failure; MariaDB ER_LOCK_DEADLOCK. */
const PG_TRANSIENT = new Set(['40P01', '40001']);
const MYSQL_DEADLOCK = 1213;
/** PostgreSQL lock_not_available (lock_timeout); MariaDB ER_LOCK_WAIT_TIMEOUT. */
const PG_LOCK_TIMEOUT = '55P03';
const MYSQL_LOCK_TIMEOUT = 1205;
const MYSQL_CONSTRAINT: Readonly<Record<number, string>> = {
  1062: 'a record with the same unique value exists',
  1451: 'the record is still referenced by another record',
  1452: 'a referenced record does not exist',
  1048: 'a required value is missing',
  1364: 'a required value is missing',
  3819: 'a value violates a check constraint',
  4025: 'a value violates a check constraint',
};
const MYSQL_INVALID = new Set([1264, 1265, 1292, 1366, 1406, 1411, 3140]);
const MYSQL_STATEMENT = new Set([1054, 1064, 1146, 1149, 1305, 1582, 1584]);
const PG_CONSTRAINT: Readonly<Record<string, string>> = {
  '23505': 'a record with the same unique value exists',
  '23503': 'a referenced record does not exist, or the record is still referenced',
  '23502': 'a required value is missing',
  '23514': 'a value violates a check constraint',
  '23P01': 'a value violates an exclusion constraint',
};

/**
 * A deadlock (or serialization failure) the database broke by rolling our transaction back: nothing
 * of it was kept, so running the whole transaction again is safe. Looks through `cause` too.
 */
export function isTransientConflict(raw: unknown): boolean {
  for (
    let error = raw, depth = 0;
    typeof error === 'object' && error !== null && depth < 5;
    error = (error as { cause?: unknown }).cause, depth += 1
  ) {
    const { code, errno, sqlState } = error as DriverError;
    if (
      (typeof code === 'string' && PG_TRANSIENT.has(code)) ||
      errno === MYSQL_DEADLOCK ||
      code === 'ER_LOCK_DEADLOCK' ||
      sqlState === '40001'
    )
      return true;
  }
  return false;
}

/** Why a write waited in vain for other writers (match locks, row locks), or null: worth trying again later. */
function conflictReason(error: DriverError): string | null {
  if (error.code === PG_LOCK_TIMEOUT || error.errno === MYSQL_LOCK_TIMEOUT) return 'another write held the records it needed for too long';
  if (isTransientConflict(error)) return 'another write of the same records got in the way (a deadlock)';
  return null;
}

function sqliteConstraint(message: string): string {
  if (message.includes('UNIQUE') || message.includes('PRIMARY KEY')) return 'a record with the same unique value exists';
  if (message.includes('FOREIGN KEY')) return 'a referenced record does not exist, or the record is still referenced';
  if (message.includes('NOT NULL')) return 'a required value is missing';
  if (message.includes('CHECK')) return 'a value violates a check constraint';
  return 'a constraint of the database is violated';
}

function statementProblem(error: DriverError): string | null {
  const code = typeof error.code === 'string' ? error.code : '';
  const message = error.message ?? '';
  if (code === '42601' || error.errno === 1064 || /syntax error|incomplete input/.test(message)) {
    if (/multiple commands/.test(message)) return 'it holds more than one statement';
    return 'it has a syntax error';
  }
  if (missingParameters(error)) return 'it uses parameters ($1, …), which a free query is not given; write the values into the statement';
  if (code === '22012' || error.errno === 1365 || /division by zero/.test(message)) return 'it divides by zero';
  if (code === '42P01' || error.errno === 1146 || /no such table/.test(message)) return 'it names a table that does not exist';
  if (code === '42703' || error.errno === 1054 || /no such column/.test(message)) return 'it names a column that does not exist';
  if (code === '42883' || error.errno === 1305 || /no such function/.test(message)) return 'it calls a function that does not exist';
  // PostgreSQL: what a cursor cannot hold (a data-modifying WITH), and other features refused in place.
  if (code === '0A000') return 'the database does not support it as a query';
  if (code.startsWith('42') || (error.errno !== undefined && MYSQL_STATEMENT.has(error.errno)) || code === 'SQLITE_ERROR')
    return 'the database cannot run it';
  return null;
}

/**
 * A statement stopped by the statement timeout: PostgreSQL query_canceled (statement_timeout; the
 * connector sends no other cancel), MariaDB max_statement_time, MySQL max_execution_time, and
 * SQLite's interrupt (which only the timeout calls) — and a free query's own clock (DeadlinePassed).
 */
function timedOut(error: DriverError): boolean {
  return (
    error.name === 'DeadlinePassed' ||
    error.code === '57014' ||
    error.errno === 1969 ||
    error.errno === 3024 ||
    error.code === 'SQLITE_INTERRUPT'
  );
}

/**
 * PostgreSQL refusing NUL (U+0000): text cannot hold it (22021, "invalid byte sequence … 0x00" —
 * the only byte sequence a JavaScript string can send that PostgreSQL refuses), nor can jsonb as
 * the escape \u0000 (22P05). Said as such: "an unsupported character" leaves a user searching.
 */
function refusesNul(code: string, error: DriverError): boolean {
  return (code === '22021' && /0x00/.test(error.message ?? '')) || (code === '22P05' && /\\u0000/.test(error.detail ?? ''));
}

/**
 * An answer over the bounds of answer-size.ts: the guard's AnswerTooLarge (PostgreSQL), or SQLite's
 * TOOBIG while reading (while writing, it is the value written that is too long: not this).
 */
function tooLargeAnswer(raw: AnswerTooLarge | DriverError, context: ErrorContext): ConnectorError | undefined {
  const sqlite = !(raw instanceof AnswerTooLarge);
  if (sqlite && !context.reads) return undefined;
  const { systemId, action, limits } = context;
  if (context.statement && limits !== undefined) {
    if (raw instanceof AnswerTooLarge && raw.over === 'batch') return resultTooLargeError(systemId, 'bytes', limits, raw);
    // The bound was the free query's own unless limits.queryBytes is higher than any row may be.
    const ownBound = (sqlite ? limits.queryBytes : (raw as AnswerTooLarge).limitBytes) < MAX_ROW_BYTES;
    if (ownBound) return rowTooLargeError(systemId, action, sqlite ? 'value' : 'row', { name: 'queryBytes', limits }, raw);
  }
  return rowTooLargeError(systemId, action, sqlite ? 'value' : 'row', { name: 'rowBytes', text: MAX_ROW_BYTES_TEXT }, raw);
}

/** The ConnectorError (or, for a failure no caller can act on, a plain Error) for a driver error. */
export function toConnectorError(raw: unknown, context: ErrorContext): Error {
  if (raw instanceof ConnectorError) return raw;
  if (raw instanceof Error && raw.name === 'AbortError') return raw;
  if (raw instanceof AnswerTooLarge || (raw as DriverError | null)?.code === 'SQLITE_TOOBIG') {
    const tooLarge = tooLargeAnswer(raw as AnswerTooLarge | DriverError, context);
    if (tooLarge !== undefined) return tooLarge;
  }
  const error = (typeof raw === 'object' && raw !== null ? raw : {}) as DriverError;
  const code = typeof error.code === 'string' ? error.code : '';
  const where = `system '${context.systemId}'`;
  if (timedOut(error) && context.limits !== undefined) return statementTimeoutError(context.systemId, context.action, context.limits, raw);
  const reason = conflictReason(error) ?? driverFailure(error)?.reason;
  if (reason !== undefined) {
    return new ConnectorError('unavailable', `${where}: the database cannot be reached (${reason})`, {
      cause: raw,
      details: { system: context.systemId, reason },
    });
  }
  if (code === '25006' || error.errno === 1792 || code.startsWith('SQLITE_READONLY')) {
    return new ConnectorError('read-only', `${where}: the database refused to write while ${context.action}; queries run read-only`, {
      cause: raw,
    });
  }
  const constraint = code.startsWith('23')
    ? (PG_CONSTRAINT[code] ?? 'a constraint of the database is violated')
    : error.errno !== undefined && MYSQL_CONSTRAINT[error.errno] !== undefined
      ? MYSQL_CONSTRAINT[error.errno]
      : code.startsWith('SQLITE_CONSTRAINT')
        ? sqliteConstraint(error.message ?? '')
        : null;
  if (constraint) return new ConnectorError('rejected', `${where}: the database refused ${context.action}: ${constraint}`, { cause: raw });
  const problem = statementProblem(error);
  if (problem !== null && context.statement) {
    return new ConnectorError('rejected', `${where}: the database refused the statement: ${problem}`, { cause: raw });
  }
  if (refusesNul(code, error)) {
    return new ConnectorError(
      'invalid-value',
      `${where}: a text value holds the NUL character (U+0000), which PostgreSQL cannot store or compare, while ${context.action}; remove it from the value`,
      { cause: raw },
    );
  }
  if (
    code.startsWith('22') ||
    (error.errno !== undefined && MYSQL_INVALID.has(error.errno)) ||
    code === 'SQLITE_TOOBIG' ||
    code === 'SQLITE_MISMATCH'
  ) {
    return new ConnectorError(
      'invalid-value',
      `${where}: a value does not fit the database while ${context.action} (wrong type, too long, out of range or an unsupported character)`,
      { cause: raw },
    );
  }
  if (problem !== null) {
    return new ConnectorError(
      'definition-mismatch',
      `${where}: ${context.action} failed: the database does not match the definition (${problem.replace(/^it /, 'the SQL ')})`,
      { cause: raw },
    );
  }
  return new Error(`${where}: ${context.action} failed in the database`, { cause: raw });
}
