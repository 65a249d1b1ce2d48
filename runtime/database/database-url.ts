/**
 * Where the runtime database lives, from `--db` or `SYNCLINE_DB`: a PostgreSQL URL
 * (`postgres://`, `postgresql://`), a MariaDB/MySQL URL (`mysql://`, `mariadb://`), an SQLite
 * file as `sqlite:relative/or/absolute.db`, or a bare file path (which means SQLite). Without
 * either, the SQLite file `.syncline/syncline.db` under the working directory.
 *
 * Parsing does no I/O; `openDatabase` creates the default folder and checks the rest.
 */
import { isAbsolute, resolve } from 'node:path';
import type { EngineName } from '../../connectors/sql/engines/index.js';
import { envOrFile, EnvOrFileError, type EnvValue } from '../env-or-file.js';

/** The engine of the runtime database (connectors/sql/engines/). */
export type DatabaseDialect = EngineName;

export type DatabaseLocation =
  | {
      dialect: 'sqlite';
      /** Absolute path of the database file. */
      filename: string;
      /** True for the default location only: its folder is created when missing. */
      createFolder: boolean;
      /** For messages and logs. */
      display: string;
    }
  | {
      dialect: 'postgres' | 'mysql';
      /** The URL handed to the driver (`mariadb://` is rewritten to `mysql://`). */
      url: string;
      /** The URL with its password replaced by `***`, for messages and logs. */
      display: string;
    };

/** The default runtime database, relative to the working directory. */
export const defaultDatabaseFile = '.syncline/syncline.db';

export class DatabaseUrlError extends Error {
  override name = 'DatabaseUrlError';
}

const forms = 'postgres://user@host:5432/db, mysql://user@host:3306/db, mariadb://…, sqlite:path/to/file.db or a file path';

/** `scheme:` at the start; a single letter is a Windows drive (`C:\…`), which is a path. */
const schemePattern = /^([a-z][a-z0-9+.-]+):/i;

/**
 * The database named by the `--db` flag, else by `SYNCLINE_DB` or the file `SYNCLINE_DB_FILE`
 * names (a URL with a password, mounted as a secret; an empty variable counts as unset), else the
 * default file. `baseDirectory` resolves relative SQLite paths (default: the working directory).
 */
export function databaseSetting(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
  baseDirectory = process.cwd(),
): DatabaseLocation {
  if (flag !== undefined) return parseDatabaseUrl(flag, { source: '--db', baseDirectory });
  let fromEnv: EnvValue | undefined;
  try {
    fromEnv = envOrFile(env, 'SYNCLINE_DB');
  } catch (error) {
    if (error instanceof EnvOrFileError) throw new DatabaseUrlError(error.message);
    throw error;
  }
  if (fromEnv !== undefined) return parseDatabaseUrl(fromEnv.value, { source: fromEnv.source, baseDirectory });
  return { dialect: 'sqlite', filename: resolve(baseDirectory, defaultDatabaseFile), createFolder: true, display: defaultDatabaseFile };
}

/** One database URL or path; `source` names where it came from in error messages. */
export function parseDatabaseUrl(text: string, options: { source?: string; baseDirectory?: string } = {}): DatabaseLocation {
  const source = options.source ?? 'the database URL';
  const baseDirectory = options.baseDirectory ?? process.cwd();
  const value = text.trim();
  if (value === '') throw new DatabaseUrlError(`${source} is empty; give one of ${forms}`);

  const scheme = schemePattern.exec(value)?.[1]?.toLowerCase();
  switch (scheme) {
    case undefined:
      return sqliteFile(value, value, source, baseDirectory);
    case 'sqlite':
    case 'sqlite3':
      return sqliteFile(value.slice(scheme.length + 1), value, source, baseDirectory);
    case 'postgres':
    case 'postgresql':
      return serverUrl('postgres', value, source);
    case 'mysql':
    case 'mariadb':
      return serverUrl('mysql', value, source);
    default:
      throw new DatabaseUrlError(`${source}: '${scheme}:' is not a supported database; give one of ${forms}`);
  }
}

function sqliteFile(path: string, original: string, source: string, baseDirectory: string): DatabaseLocation {
  if (path.startsWith('//')) {
    // `sqlite://x` reads like a URL with a host; SQLAlchemy and others disagree on what it means.
    throw new DatabaseUrlError(`${source}: '${original}' is ambiguous; write sqlite:relative/file.db or sqlite:/absolute/file.db`);
  }
  if (path === '' || path.endsWith('/') || path.endsWith('\\')) {
    throw new DatabaseUrlError(`${source}: '${original}' names no SQLite file; give a file such as sqlite:data/syncline.db`);
  }
  if (path === ':memory:' || path.startsWith('file:')) {
    // Each pooled connection would see its own in-memory database, and queue state must outlive the process.
    throw new DatabaseUrlError(
      `${source}: '${original}' is not a file; the runtime database must be a file such as sqlite:data/syncline.db`,
    );
  }
  return { dialect: 'sqlite', filename: isAbsolute(path) ? path : resolve(baseDirectory, path), createFolder: false, display: original };
}

function serverUrl(dialect: 'postgres' | 'mysql', value: string, source: string): DatabaseLocation {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DatabaseUrlError(
      `${source}: '${masked(value)}' is not a valid URL; write it like ${dialect === 'postgres' ? 'postgres://user:password@host:5432/database' : 'mysql://user:password@host:3306/database'}`,
    );
  }
  if (url.hostname === '')
    throw new DatabaseUrlError(
      `${source}: '${masked(value)}' names no host; write it like ${dialect === 'postgres' ? 'postgres' : 'mysql'}://user@host/database`,
    );
  if (dialect === 'mysql' && url.pathname.replace(/^\//, '') === '') {
    // Without a database, MariaDB would refuse every table statement with "No database selected".
    throw new DatabaseUrlError(`${source}: '${masked(value)}' names no database; add it as the path, e.g. mysql://user@host:3306/syncline`);
  }
  if (dialect === 'mysql' && url.protocol === 'mariadb:') url.protocol = 'mysql:';
  return { dialect, url: dialect === 'mysql' ? url.toString() : value, display: masked(value) };
}

/**
 * The URL with its password hidden: everything from the user's ':' to the last '@', as a URL
 * parser reads it — a password holding an unescaped '/' or '@' is hidden whole too (a path or
 * query holding an '@' is hidden with it, which errs on the safe side).
 */
function masked(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):.*@/is, '$1:***@');
}
