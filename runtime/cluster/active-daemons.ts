/**
 * The daemons at work on the runtime database, as any process sees them (/readyz, /metrics): the
 * rows whose expiry has not passed (register-daemon.ts). A daemon that was killed or cut off
 * stops renewing its row and drops out of this list a few heartbeats later; its row stays until
 * a daemon forgets it.
 *
 *   SELECT id, host, pid, version, command, concurrency, running, started_at, heartbeat_at
 *     FROM daemons WHERE expires_at > ?
 *    ORDER BY started_at, id
 *    LIMIT ?
 *   SELECT COUNT(*) AS count FROM daemons WHERE expires_at > ?        (only when the list is full)
 *
 *   forget: DELETE FROM daemons WHERE expires_at < ?
 *   count:  SELECT COUNT(*) AS count FROM daemons WHERE expires_at > ?
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { fromDatabaseTime, toDatabaseTime } from '../database/timestamps.js';

/** An active daemon. */
export interface ActiveDaemon {
  id: string;
  host: string;
  pid: number;
  version: string;
  command: string;
  concurrency: number;
  /** Items it ran at its last heartbeat. */
  running: number;
  startedAt: Date;
  lastHeartbeatAt: Date;
}

export interface ActiveDaemons {
  /** How many daemons are active, even past `limit`. */
  count: number;
  /** The first `limit` of them, oldest first. */
  daemons: ActiveDaemon[];
}

/** The daemons active at `now`, at most `limit` of them listed (default 100). */
export async function activeDaemons(db: RuntimeDatabase, options: { now?: Date; limit?: number } = {}): Promise<ActiveDaemons> {
  const now = toDatabaseTime(db.dialect, options.now ?? new Date());
  const limit = options.limit ?? 100;
  const rows = (await db
    .knex('daemons')
    .select('id', 'host', 'pid', 'version', 'command', 'concurrency', 'running', 'started_at', 'heartbeat_at')
    .where('expires_at', '>', now)
    .orderBy([{ column: 'started_at' }, { column: 'id' }])
    .limit(limit)) as Array<Record<string, unknown>>;
  const daemons = rows.map((row) => ({
    id: String(row.id),
    host: String(row.host),
    pid: Number(row.pid),
    version: String(row.version),
    command: String(row.command),
    concurrency: Number(row.concurrency),
    running: Number(row.running),
    startedAt: fromDatabaseTime(row.started_at),
    lastHeartbeatAt: fromDatabaseTime(row.heartbeat_at),
  }));
  if (daemons.length < limit) return { count: daemons.length, daemons };
  return { count: await countActiveDaemons(db, options.now), daemons };
}

/** Deletes the rows of daemons gone before `before`; answers how many. */
export async function forgetGoneDaemons(db: RuntimeDatabase, before: Date): Promise<number> {
  return db.knex('daemons').where('expires_at', '<', toDatabaseTime(db.dialect, before)).delete();
}

/** How many daemons are active at `now`, without listing them (/metrics). */
export async function countActiveDaemons(db: RuntimeDatabase, now = new Date()): Promise<number> {
  const [counted] = (await db.knex('daemons').count({ count: '*' }).where('expires_at', '>', toDatabaseTime(db.dialect, now))) as Array<{
    count: number | string;
  }>;
  // PostgreSQL answers COUNT(*) as a bigint string.
  return Number(counted?.count ?? 0);
}
