/**
 * `syncline run SYNC_ID` — runs one sync (or flow) now, in this process, as a queue item of start
 * type `manual` (so GetAction, the console and the log know it like any other run), with a
 * progress line on standard error and a statistics table on standard output at the end.
 *
 * Exit codes: 0 the run completed and no record failed; 1 the run failed or some records failed
 * (a CI job or cron wrapper notices); 2 unusable arguments or definitions path.
 *
 * Ctrl-C stops the run: the item is recorded as Failed ("interrupted"), not handed back to the
 * queue, because an operator who stopped a run by hand does not want a daemon to redo it.
 */
import { ConnectionPool } from '../../connectors/connection-pool.js';
import { newWorkerId } from '../daemon/worker-id.js';
import { awaitTurn, followUntilEnd } from '../execution/await-turn.js';
import { concurrencyOf } from '../execution/concurrency-of.js';
import { runHeldItem } from '../execution/run-held-item.js';
import { createLogger } from '../log.js';
import { cancelPending } from '../queue/cancel.js';
import { completeItem } from '../queue/complete.js';
import { getItem } from '../queue/get-item.js';
import type { QueueRow } from '../queue/queue-item.js';
import { startItem } from '../queue/start-item.js';
import { connectionContext, queueSettings, SettingsError, type QueueSettings } from '../settings.js';
import { runProcess } from '../sync/run-process.js';
import { openMigratedDatabase } from './open-runtime-database.js';
import { ProgressLine } from './progress-line.js';
import { prepareRun, type RunFlags } from './run-start.js';
import { sourceTotal } from './source-total.js';
import { elapsedText, statisticsTable } from './statistics-table.js';

export async function runCommand(processId: string, flags: RunFlags): Promise<number> {
  let queue: QueueSettings;
  try {
    queue = queueSettings({ ...(flags.db === undefined ? {} : { db: flags.db }) });
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  const prepared = await prepareRun(processId, flags, 'not running');
  if (typeof prepared === 'number') return prepared;
  const { definitionsDir, snapshot, actionParams, whereClause } = prepared;

  // The log goes to standard error, warnings only unless asked: the progress line is the news.
  const log = createLogger(process.env.SYNCLINE_LOG_LEVEL ?? 'warn', 'stderr');
  const db = await openMigratedDatabase(queue.database, log);
  if (db === undefined) return 1;
  // A SQLite filename is relative to the definitions, not to where the process was started.
  const connections = new ConnectionPool(connectionContext(definitionsDir));
  const workerId = newWorkerId('run');
  const leaseMs = queue.leaseMs;
  const progress = new ProgressLine(process.stderr, processId);
  const stop = new AbortController();
  const interrupt = (): void => stop.abort();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const started = performance.now();
  try {
    const concurrency = concurrencyOf(snapshot, processId);
    let item = await startItem(
      db,
      {
        processId,
        startType: 'manual',
        ...(flags.where === undefined ? {} : { whereClause: flags.where }),
        ...(actionParams.length === 0 ? {} : { actionParams }),
        ...(concurrency === undefined ? {} : { concurrency }),
      },
      { workerId, leaseMs },
    );
    if (item.status === 'Pending') {
      process.stderr.write(
        `${processId}: waiting in line (item ${item.id}): its concurrency limit of ${concurrency?.limit ?? 1} run(s) at once is reached; Ctrl-C stops waiting and ends the item Failed\n`,
      );
      item = await awaitTurn(item, { db, workerId, leaseMs, signal: stop.signal });
      // Stopped while still in line: the item ends as docs/cli.md promises for Ctrl-C, and no daemon runs it later.
      if (
        stop.signal.aborted &&
        item.status === 'Pending' &&
        (await cancelPending(db, item.id, 'interrupted by the operator while waiting in line (syncline run was stopped)'))
      ) {
        item = (await getItem(db, item.id)) ?? item;
      }
    }
    let finished = item;
    if (item.status === 'InProgress' && item.lockedBy === workerId) {
      progress.start(`item ${item.id}`, await sourceTotal(snapshot, processId, connections, actionParams, whereClause, db));
      finished = await runHeldItem({ db, snapshot: () => snapshot, connections, log, runProcess, workerId, leaseMs }, item, {
        signal: stop.signal,
        onProgress: (statistics) => progress.update(statistics),
      });
    } else if (item.status === 'InProgress' && !stop.signal.aborted) {
      process.stderr.write(`${processId}: a daemon took item ${item.id} first; following it until it ends\n`);
      finished = await followUntilEnd(item, { db, signal: stop.signal });
    }
    if (stop.signal.aborted && finished.status === 'InProgress' && finished.lockedBy === workerId) {
      await completeItem(db, {
        id: item.id,
        workerId,
        status: 'Failed',
        ...(progress.latest === undefined ? {} : { statistics: { ...progress.latest } }),
        errors: [{ message: 'interrupted by the operator (syncline run was stopped)' }],
      });
      finished = (await getItem(db, item.id)) ?? finished;
    }
    progress.end();
    process.stdout.write(summary(finished, performance.now() - started));
    return finished.status === 'Complete' && (finished.statistics?.failed ?? 0) === 0 ? 0 : 1;
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    progress.end();
    await connections.closeAll();
    await db.close();
  }
}

const shownErrors = 10;

/** The statistics table, the status and the first errors, as plain text. */
function summary(item: QueueRow, elapsedMs: number): string {
  const statistics = item.statistics ?? { read: 0, created: 0, updated: 0, skipped: 0, failed: 0 };
  const lines = statisticsTable(`${item.processId}: ${item.status} in ${elapsedText(elapsedMs)} (item ${item.id})`, statistics, elapsedMs);
  if (item.errors.length > 0) {
    lines.push('', `Errors (${item.errors.length}${item.errors.length > shownErrors ? `, first ${shownErrors}` : ''}):`);
    for (const error of item.errors.slice(0, shownErrors))
      lines.push(`  ${error.sourceId === undefined ? '' : `[${error.sourceId}] `}${error.message}`);
  }
  return `${lines.join('\n')}\n`;
}
