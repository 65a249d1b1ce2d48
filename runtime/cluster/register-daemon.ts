/**
 * A daemon's row in `daemons` (migrations/008-daemons.ts): written when the daemon starts and at
 * every heartbeat, deleted when it stops cleanly.
 *
 * Start and heartbeat are one upsert, so a heartbeat also puts back a row that is gone — forgotten
 * after an outage longer than the forget time, or deleted by hand — and the daemon shows again:
 *   INSERT INTO daemons (id, host, pid, version, command, concurrency, running,
 *                        started_at, heartbeat_at, expires_at) VALUES (?, …)
 *     ON CONFLICT (id) DO UPDATE SET running = excluded.running, heartbeat_at = excluded.heartbeat_at,
 *                                     expires_at = excluded.expires_at            (PostgreSQL, SQLite)
 *     ON DUPLICATE KEY UPDATE running = VALUES(running), …                        (MariaDB/MySQL)
 * `started_at` and the rest keep what the first insert wrote.
 *
 *   stop:  DELETE FROM daemons WHERE id = ?
 *
 * Times come from the process clock, like every time in the runtime database (timestamps.ts).
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';

/** What a daemon says about itself. */
export interface DaemonRecord {
  /** Its worker id: the `locked_by` of the items it holds (daemon/worker-id.ts). */
  id: string;
  host: string;
  pid: number;
  /** The Syncline version it runs. */
  version: string;
  /** The command it runs in: `daemon`, or `serve` without --no-daemon. */
  command: 'daemon' | 'serve';
  /** Items it runs at once at most. */
  concurrency: number;
  startedAt: Date;
}

/** Longest values the columns hold (008-daemons.ts); longer text is cut, never refused. */
const limits = { id: 200, host: 255, version: 64 } as const;

/** Writes the daemon's row, or renews it: `running` items now, counting as gone after `expiresAt`. */
export async function upsertDaemon(
  db: RuntimeDatabase,
  daemon: DaemonRecord,
  beat: { running: number; now: Date; expiresAt: Date },
): Promise<void> {
  const time = (value: Date) => toDatabaseTime(db.dialect, value);
  await db
    .knex('daemons')
    .insert({
      id: daemon.id.slice(0, limits.id),
      host: daemon.host.slice(0, limits.host),
      pid: daemon.pid,
      version: daemon.version.slice(0, limits.version),
      command: daemon.command,
      concurrency: daemon.concurrency,
      running: beat.running,
      started_at: time(daemon.startedAt),
      heartbeat_at: time(beat.now),
      expires_at: time(beat.expiresAt),
    })
    .onConflict('id')
    .merge(['running', 'heartbeat_at', 'expires_at']);
}

/** Deletes the daemon's row: it stopped cleanly and is gone at once. */
export async function removeDaemon(db: RuntimeDatabase, id: string): Promise<void> {
  await db.knex('daemons').where('id', id.slice(0, limits.id)).delete();
}
