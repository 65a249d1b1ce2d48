/**
 * A daemon's presence on the runtime database, so every process on it can report the cluster
 * (DESIGN §10, §12): its row is written at start, renewed every heartbeat with the items it runs,
 * and deleted when it stops cleanly (cluster/register-daemon.ts). Each row carries its own expiry,
 * `missedHeartbeats` intervals after the heartbeat: a daemon that stops renewing (killed, frozen,
 * cut off from the database) counts as gone once that has passed, whoever reads it.
 *
 * Rows of daemons gone for longer than `forgetAfterMs` are deleted by any daemon's heartbeat, at
 * most once a minute per daemon; until then a gone daemon's row is kept for whoever looks at the
 * table after a crash.
 *
 * A failed write is logged and tried again at the next heartbeat: a database outage shorter than
 * the expiry does not make the daemon disappear, and a longer one makes it reappear when the
 * database is back.
 */
import { hostname } from 'node:os';
import type { RuntimeDatabase } from '../database/open-database.js';
import { repeatEvery, type Repeating } from '../execution/repeat-every.js';
import type { Logger } from '../log.js';
import { forgetGoneDaemons } from '../cluster/active-daemons.js';
import { removeDaemon, upsertDaemon, type DaemonRecord } from '../cluster/register-daemon.js';

/** Heartbeats a daemon may miss before it counts as gone. */
export const missedHeartbeats = 3;
/** How long the row of a gone daemon is kept before a heartbeat deletes it. */
export const forgetAfterMs = 3_600_000;
/** Least time between two deletions of gone rows by one daemon. */
const forgetEveryMs = 60_000;

export interface PresenceOptions {
  db: RuntimeDatabase;
  log: Logger;
  /** The daemon's worker id. */
  id: string;
  command: DaemonRecord['command'];
  version: string;
  concurrency: number;
  /** Items the daemon runs now; read at every heartbeat. */
  running: () => number;
  /** Between heartbeats, in ms. */
  heartbeatMs: number;
}

export interface DaemonPresence {
  /** Stops the heartbeats and deletes the row (the daemon is gone at once); safe to call twice. */
  stop(): Promise<void>;
}

/** Registers the daemon (waiting for the first write, so it shows as soon as this resolves) and keeps it registered. */
export async function startDaemonPresence(options: PresenceOptions): Promise<DaemonPresence> {
  const { db, log, heartbeatMs } = options;
  const record: DaemonRecord = {
    id: options.id,
    host: hostname(),
    pid: process.pid,
    version: options.version,
    command: options.command,
    concurrency: options.concurrency,
    startedAt: new Date(),
  };
  let forgottenAt = Number.NEGATIVE_INFINITY;
  let failing = false;

  const beat = async (): Promise<void> => {
    const now = new Date();
    try {
      await upsertDaemon(db, record, {
        running: options.running(),
        now,
        expiresAt: new Date(now.getTime() + missedHeartbeats * heartbeatMs),
      });
      if (failing) log.info({ daemon: record.id }, 'daemon heartbeat written again; the daemon shows in the cluster');
      failing = false;
      if (now.getTime() - forgottenAt >= forgetEveryMs) {
        forgottenAt = now.getTime();
        const forgotten = await forgetGoneDaemons(db, new Date(now.getTime() - forgetAfterMs));
        if (forgotten > 0) log.info({ forgotten }, 'forgot daemons gone for more than an hour');
      }
    } catch (error) {
      failing = true;
      log.warn({ err: error, daemon: record.id }, `could not write the daemon heartbeat; trying again in ${heartbeatMs}ms`);
    }
  };

  await beat();
  const heartbeats: Repeating = repeatEvery(heartbeatMs, beat);
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        await heartbeats.stop();
        try {
          await removeDaemon(db, record.id);
        } catch (error) {
          // The row expires by itself a few heartbeats from now.
          log.warn({ err: error, daemon: record.id }, 'could not remove the daemon from the runtime database; it expires by itself');
        }
      })();
      return stopped;
    },
  };
}
