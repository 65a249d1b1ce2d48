/**
 * Whether a driver error means that the database cannot serve right now — unreachable, refusing
 * the login, shutting down, out of connections or disk, its file unreadable, its pool closed —
 * rather than that this statement or these values are wrong. One place for all three engines,
 * used for the systems (database-errors.ts: ConnectorError `unavailable`, 503) and for the
 * runtime database (runtime/database/database-failure.ts: 503 with Retry-After, /readyz).
 *
 * Classified by the drivers' codes: Node's socket errors, PostgreSQL's SQLSTATE classes 08
 * (connection), 53 (insufficient resources) and 57P (operator intervention), mysql2's codes and
 * errno, SQLite's result codes (with their extended forms, e.g. SQLITE_IOERR_WRITE), Knex's
 * timeout waiting for a pooled connection; a few failures carry no code and are known by their
 * message. The `reason` is a few words safe to show: never driver text, host or credentials.
 */

/** What kind of failure: all of them mean "try again later", the kind says what to look at. */
export type DriverFailureKind = 'unreachable' | 'login' | 'busy' | 'full' | 'file' | 'closed';

export interface DriverFailure {
  kind: DriverFailureKind;
  /** A few words for messages, e.g. "connection refused", "the disk is full". */
  reason: string;
}

interface DriverError {
  name?: string;
  code?: string | number;
  errno?: number;
  fatal?: boolean;
  message?: string;
}

const SOCKET: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'the connection failed',
  ECONNRESET: 'the connection failed',
  EHOSTUNREACH: 'the connection failed',
  ENETUNREACH: 'the connection failed',
  EPIPE: 'the connection failed',
  PROTOCOL_CONNECTION_LOST: 'the connection failed',
};

/** mysql2 errno: 1040 too many connections, 1044/1045 access denied, 1049 unknown database, 1129/1130 host blocked or not allowed, 1203 user connection limit, 2002–2013 client-side connection errors. */
const MYSQL_LOGIN = new Set([1044, 1045, 1129, 1130]);
const MYSQL_UNREACHABLE = new Set([2002, 2003, 2005, 2006, 2013]);
const MYSQL_BUSY = new Set([1040, 1203]);
/** 1021 disk full, 1114 table full. */
const MYSQL_FULL = new Set([1021, 1114]);

/** PostgreSQL answers a statement holding `$1` but sent without values with 08P01, a connection-class code: the statement's fault. */
export function missingParameters(error: { code?: unknown; message?: string }): boolean {
  return error.code === '08P01' && /bind message supplies/.test(error.message ?? '');
}

/** The failure `raw` stands for, or undefined when it is about the statement or its values. */
export function driverFailure(raw: unknown): DriverFailure | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const error = raw as DriverError;
  const code = typeof error.code === 'string' ? error.code : '';
  const message = error.message ?? '';
  if (missingParameters(error)) return undefined;
  if (error.name === 'KnexTimeoutError') return { kind: 'busy', reason: 'no connection became free in time' };
  if (SOCKET[code] !== undefined) return { kind: 'unreachable', reason: SOCKET[code] };

  if (code.startsWith('SQLITE_')) {
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return { kind: 'busy', reason: 'the database is locked' };
    if (code === 'SQLITE_FULL') return { kind: 'full', reason: 'the disk is full' };
    if (code.startsWith('SQLITE_IOERR')) return { kind: 'file', reason: 'the database file cannot be read or written' };
    if (code.startsWith('SQLITE_CANTOPEN')) return { kind: 'file', reason: 'the database file cannot be opened' };
    if (code === 'SQLITE_NOTADB') return { kind: 'file', reason: 'the file is not a SQLite database' };
    if (code === 'SQLITE_MISUSE' && /closed/i.test(message)) return { kind: 'closed', reason: 'the connection is closed' };
    return undefined;
  }

  if (code === '28P01' || code === '28000') return { kind: 'login', reason: 'authentication failed' };
  if (code === '3D000' || error.errno === 1049) return { kind: 'login', reason: 'the database does not exist' };
  if (code === '53100') return { kind: 'full', reason: 'the disk is full' };
  if (code === '53300') return { kind: 'busy', reason: 'too many connections' };
  if (/^(08|53|57P)/.test(code)) return { kind: 'unreachable', reason: 'the server refused or dropped the connection' };

  if (error.errno !== undefined) {
    if (MYSQL_LOGIN.has(error.errno)) return { kind: 'login', reason: 'authentication failed' };
    if (MYSQL_BUSY.has(error.errno)) return { kind: 'busy', reason: 'too many connections' };
    if (MYSQL_FULL.has(error.errno)) return { kind: 'full', reason: 'the disk is full' };
    if (MYSQL_UNREACHABLE.has(error.errno)) return { kind: 'unreachable', reason: 'the server refused or dropped the connection' };
  }
  // mysql2 marks errors that end the connection as fatal.
  if (error.fatal === true) return { kind: 'unreachable', reason: 'the connection failed' };

  // Without a code: pg's dropped and timed-out connections, pools closed under their callers.
  if (
    /Connection terminated|connection error and is not queryable|timeout expired|timeout exceeded when trying to connect|connect ECONNREFUSED/i.test(
      message,
    )
  ) {
    return { kind: 'unreachable', reason: 'the connection failed' };
  }
  if (/^Unable to acquire a connection$|^Pool is closed/.test(message)) return { kind: 'closed', reason: 'the connection pool is closed' };
  return undefined;
}
