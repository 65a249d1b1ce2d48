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
import type { Snapshot } from '../../definitions/snapshot.js';
import { newWorkerId } from '../daemon/worker-id.js';
import { awaitTurn, followUntilEnd } from '../execution/await-turn.js';
import { concurrencyOf } from '../execution/concurrency-of.js';
import { runHeldItem } from '../execution/run-held-item.js';
import { createLogger } from '../log.js';
import { cancelPending } from '../queue/cancel.js';
import { completeItem } from '../queue/complete.js';
import { getItem } from '../queue/get-item.js';
import type { ActionParam, ItemStatistics, QueueRow } from '../queue/queue-item.js';
import { startItem } from '../queue/start-item.js';
import { connectionContext, defaults, queueSettings, SettingsError, type QueueSettings } from '../settings.js';
import { runProcess } from '../sync/run-process.js';
import { paramPlaceholders, paramsObject } from '../sync/action-params.js';
import { parseWhereClause, WhereClauseError } from '../sync/where-clause.js';
import { loadCommandDefinitions } from './load-command-definitions.js';
import { openMigratedDatabase } from './open-runtime-database.js';
import { ProgressLine } from './progress-line.js';

export interface RunFlags {
  definitions?: string;
  db?: string;
  where?: string;
  param?: string[];
}

/** `Name=Value` → an ActionParam; the first `=` separates, so values may hold more. */
function parseParam(text: string): ActionParam {
  const at = text.indexOf('=');
  if (at <= 0) throw new SettingsError(`--param must be Name=Value, not '${text}'`);
  return { Name: text.slice(0, at), Value: text.slice(at + 1) };
}

export async function runCommand(processId: string, flags: RunFlags): Promise<number> {
  let definitionsDir: string;
  let queue: QueueSettings;
  let actionParams: ActionParam[];
  try {
    definitionsDir = flags.definitions ?? process.env.SYNCLINE_DEFINITIONS ?? defaults.definitions;
    queue = queueSettings({ ...(flags.db === undefined ? {} : { db: flags.db }) });
    actionParams = (flags.param ?? []).map(parseParam);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }

  const loaded = await loadCommandDefinitions(definitionsDir, 'not running');
  if (typeof loaded === 'number') return loaded;
  const { snapshot } = loaded;

  const sync = snapshot.syncs.get(processId);
  if (sync === undefined && !snapshot.flows.has(processId)) {
    const known = [...snapshot.syncs.keys(), ...snapshot.flows.keys()];
    process.stderr.write(`error: there is no sync or flow '${processId}' in ${definitionsDir}; known: ${known.join(', ') || 'none'}\n`);
    return 2;
  }
  if (flags.where !== undefined) {
    try {
      parseWhereClause(snapshot, processId, flags.where);
    } catch (error) {
      if (!(error instanceof WhereClauseError)) throw error;
      process.stderr.write(`error: --where: ${error.message}\n`);
      return 2;
    }
  }

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
      progress.start(item.id, flags.where === undefined ? await sourceTotal(snapshot, processId, connections, actionParams) : undefined);
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

/**
 * How many records an object source holds under the sync's own filter, for the progress bar;
 * undefined when that cannot be known cheaply (a query, the record store, a flow) or the count fails
 * (the run itself then reports the problem properly).
 */
async function sourceTotal(
  snapshot: Snapshot,
  processId: string,
  connections: ConnectionPool,
  actionParams: readonly ActionParam[],
): Promise<number | undefined> {
  const sync = snapshot.syncs.get(processId);
  const source = sync?.definition.source;
  if (sync === undefined || source?.system === undefined || source.object === undefined) return undefined;
  const system = snapshot.systems.get(source.system);
  if (system === undefined) return undefined;
  try {
    const connection = await connections.get(system.definition);
    return await connection.count(source.object, {
      ...(sync.where === undefined ? {} : { filter: sync.where }),
      placeholders: paramPlaceholders(paramsObject(actionParams)),
    });
  } catch {
    return undefined;
  }
}

const shownErrors = 10;

/** The statistics table, the status and the first errors, as plain text. */
function summary(item: QueueRow, elapsedMs: number): string {
  const statistics: ItemStatistics = item.statistics ?? { read: 0, created: 0, updated: 0, skipped: 0, failed: 0 };
  const rows: Array<[string, number]> = [
    ['Read', statistics.read],
    ['Created', statistics.created],
    ['Updated', statistics.updated],
    ['Skipped', statistics.skipped],
    ['Failed', statistics.failed],
  ];
  const width = Math.max(...rows.map(([, value]) => value.toLocaleString('en').length));
  const seconds = elapsedMs / 1000;
  const lines = [
    `${item.processId}: ${item.status} in ${seconds < 1 ? `${Math.round(elapsedMs)} ms` : `${seconds.toFixed(1)} s`} (item ${item.id})`,
    '',
    ...rows.map(([label, value]) => `  ${label.padEnd(8)} ${value.toLocaleString('en').padStart(width)}`),
  ];
  if (statistics.read > 0 && seconds >= 1) lines.push('', `  ${Math.round(statistics.read / seconds).toLocaleString('en')} records/s read`);
  if (item.errors.length > 0) {
    lines.push('', `Errors (${item.errors.length}${item.errors.length > shownErrors ? `, first ${shownErrors}` : ''}):`);
    for (const error of item.errors.slice(0, shownErrors))
      lines.push(`  ${error.sourceId === undefined ? '' : `[${error.sourceId}] `}${error.message}`);
  }
  return `${lines.join('\n')}\n`;
}
