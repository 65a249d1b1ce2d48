/**
 * The SQLite runtime database's client: SqliteImmediateClient, refusing every statement once the
 * file it opened is no longer the file at its path.
 *
 * A file deleted or replaced under a running process (an `rm` in the wrong folder, a restore
 * copied over it, a volume remounted) fails no statement: the open connection goes on reading and
 * writing the deleted file, every AddAction and webhook start answers 200, and all of it is gone
 * at the next start, which opens the file at the path. So the path is checked against the file
 * opened first (its device and inode) before statements, at most once a second, and from the
 * first difference on every statement fails with FileReplacedError: the runtime answers 503 and
 * /readyz says why (runtime/database/database-failure.ts), until the process is restarted. What
 * was accepted within that second is in the deleted file.
 */
import { statSync } from 'node:fs';
import { SqliteImmediateClient } from './sqlite-clients.js';

/** Thrown for every statement once the runtime database's file was deleted or replaced. */
export class FileReplacedError extends Error {
  override name = 'FileReplacedError';
  readonly code = 'SYNCLINE_FILE_REPLACED';
}

/** Between two looks at the path, in ms: a `stat` per statement would cost the queue's hot path a system call each. */
const checkEveryMs = 1000;

/** The file's identity, or undefined when nothing is at the path. */
function identityOf(path: string): string | undefined {
  try {
    const stat = statSync(path);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

/** What the guard keeps: in the Knex config, which a transaction's client shares with its parent. */
interface FileGuard {
  path: string;
  /** The file opened first; set once its first connection is made. */
  identity?: string;
  checkedAt: number;
  /** Set for good at the first difference: only a restart opens the file now at the path. */
  replaced: boolean;
}

/** The guard for the file at `path`, put in the client's config as `fileGuard`. */
export function fileGuard(path: string): FileGuard {
  return { path, checkedAt: 0, replaced: false };
}

/** The guard in the client's config (`fileGuard`, a setting of its own Knex passes through). */
function guardOf(client: SqliteImmediateClient): FileGuard {
  return (client as unknown as { config: { fileGuard: FileGuard } }).config.fileGuard;
}

export class SqliteRuntimeClient extends SqliteImmediateClient {
  override async acquireRawConnection(): Promise<unknown> {
    const connection = await super.acquireRawConnection();
    const guard = guardOf(this);
    // A connection made after the file was lost opens a new file at the path: the guard keeps the first.
    guard.identity ??= identityOf(guard.path);
    return connection;
  }

  override async _query(connection: unknown, query: unknown): Promise<unknown> {
    const guard = guardOf(this);
    const now = Date.now();
    if (!guard.replaced && guard.identity !== undefined && now - guard.checkedAt >= checkEveryMs) {
      guard.checkedAt = now;
      guard.replaced = identityOf(guard.path) !== guard.identity;
    }
    // A new error each time: Knex writes the statement into the message of the error it is given.
    if (guard.replaced)
      throw new FileReplacedError(
        `the runtime database's file ${guard.path} was deleted or replaced while this process ran; restart the process`,
      );
    return super._query(connection, query);
  }
}
