/**
 * Running an item this process holds (claimed by the daemon, or started by a direct HTTP run or
 * `syncline run`) to its end, and recording the end on the item.
 *
 * While the run goes on, a heartbeat every lease/3 extends the lease and stores the statistics so
 * far (queue/record-progress.ts). Three things stop a run early, through one AbortSignal:
 * - the sync's `timeout` — the attempt fails and, like any failure that may pass, is retried;
 * - a heartbeat that finds the item no longer held (the lease ran out and a reaper took it back,
 *   so another worker may be running it now) — the result is dropped, nothing is written;
 * - the caller's signal (the daemon stopping) — an unfinished run is left held, and the caller
 *   hands it back with release().
 * The outcome decides the rest: Complete → Complete; Failed and retryable → another attempt after
 * the sync's backoff, or Failed once the attempts are used up; Failed and not retryable → Failed.
 */
import type { Snapshot } from '../../definitions/snapshot.js';
import { parseDuration } from '../../definitions/duration.js';
import { runtimeDatabaseFailure } from '../database/database-failure.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import type { ConnectionProvider } from '../../connectors/connection-pool.js';
import type { Logger } from '../log.js';
import type { RunMetrics } from '../metrics/run-metrics.js';
import { completeItem, type NewItemError } from '../queue/complete.js';
import { getItem } from '../queue/get-item.js';
import { announceFreedPlace } from '../queue/notify.js';
import { noStatistics, type ItemStatistics, type QueueRow } from '../queue/queue-item.js';
import { recordProgress } from '../queue/record-progress.js';
import { failAttempt, type RetryPolicy } from '../queue/retry.js';
import type { RunOutcome, RunProcess } from './process-run.js';
import { repeatEvery } from './repeat-every.js';
import { defaultRetryPolicy, retryPolicyOf } from './retry-of.js';

/** What running held items needs; one per process (the daemon and the HTTP routes share its shape). */
export interface ItemRunner {
  db: RuntimeDatabase;
  /** The current definitions; read once when a run starts, which then keeps that snapshot. */
  snapshot: () => Snapshot;
  connections: ConnectionProvider;
  log: Logger;
  runProcess: RunProcess;
  /** The id this process holds items under. */
  workerId: string;
  /** How long a hold lasts without a heartbeat, in ms; heartbeats come every third of it. */
  leaseMs: number;
  /** Counts each attempt whose end is recorded (metrics/run-metrics.ts); absent: not counted. */
  metrics?: RunMetrics;
}

export interface RunHeldItemOptions {
  /** False: answer the item as it was held, without reading the final row back (default true). */
  reread?: boolean;
  /** Aborts the run (the daemon stopping); an unfinished item is then left held for release(). */
  signal?: AbortSignal;
  /** Called as the run's statistics grow. */
  onProgress?: (statistics: Readonly<ItemStatistics>) => void;
  /**
   * The item waited after its claim (in the daemon's buffer): its real start, now, is stored
   * with its end instead of the claim's time.
   */
  startedLate?: boolean;
  /**
   * Called once the run is over, before its end is recorded (or, for a run whose end is not this
   * worker's to record, before the answer). The daemon frees the item's slot then: recording the
   * end is a write that needs no slot, and a slot held through its round trip would sit idle.
   */
  onRunEnded?: () => void;
}

/** Why the run was stopped early, when it was. */
type Interruption = { kind: 'timeout'; timeoutMs: number; text: string } | { kind: 'lost' } | { kind: 'stopped' };

interface ProcessSettings {
  timeoutMs?: number;
  timeoutText?: string;
  retry: RetryPolicy;
}

/**
 * Per snapshot, each process's settings, worked out the first time one of its items runs: a
 * snapshot never changes (a reload makes a new one), so its durations need parsing only once,
 * not at every item's start.
 */
const settingsBySnapshot = new WeakMap<Snapshot, Map<string, ProcessSettings | undefined>>();

function processSettings(snapshot: Snapshot, processId: string): ProcessSettings | undefined {
  let known = settingsBySnapshot.get(snapshot);
  if (known === undefined) settingsBySnapshot.set(snapshot, (known = new Map()));
  if (!known.has(processId)) known.set(processId, settingsOf(snapshot, processId));
  return known.get(processId);
}

function settingsOf(snapshot: Snapshot, processId: string): ProcessSettings | undefined {
  const retry = retryPolicyOf(snapshot, processId);
  if (retry === undefined) return undefined;
  const timeout = snapshot.syncs.get(processId)?.definition.timeout;
  const timeoutMs = timeout === undefined ? undefined : parseDuration(timeout);
  return { ...(timeoutMs === undefined ? {} : { timeoutMs, timeoutText: timeout }), retry };
}

/**
 * The id of the sync (first) or flow the item runs in the current definitions: its own, or the one
 * it matches in another case — ids are matched in any case where items are enqueued, so a sync
 * renamed only in case still runs the items enqueued under its old spelling.
 */
function definedProcessId(snapshot: Snapshot, id: string): string {
  if (snapshot.syncs.has(id) || snapshot.flows.has(id)) return id;
  const lower = id.toLowerCase();
  for (const kind of [snapshot.syncs, snapshot.flows]) {
    for (const defined of kind.keys()) if (defined.toLowerCase() === lower) return defined;
  }
  return id;
}

/** Runs the held `item` to its end; answers the item as stored afterwards. */
export async function runHeldItem(runner: ItemRunner, item: QueueRow, options: RunHeldItemOptions = {}): Promise<QueueRow> {
  const { db, workerId } = runner;
  // The request that started the item is on every line of its run, here and in the sync engine,
  // so they lead back to the request's own lines in the API's log, whichever process runs it.
  const log = item.requestId ? runner.log.child({ requestId: item.requestId }) : runner.log;
  const started = performance.now();
  const startedAt = options.startedLate === true ? new Date() : undefined;
  const fields = { itemId: item.id, processId: item.processId, attempt: item.attempts, startType: item.startType };
  const snapshot = runner.snapshot();
  const processId = definedProcessId(snapshot, item.processId);
  const settings = processSettings(snapshot, processId);
  // The daemon only logs the end, so it spares the database the read of the final row.
  const reread = async (): Promise<QueueRow> => (options.reread === false ? item : ((await getItem(db, item.id)) ?? item));

  if (settings === undefined) {
    // Renamed or deleted since it was enqueued — or between the two halves of a deploy that
    // removes files and writes them again, which a reload can see: a later attempt, after the
    // default backoff, runs it if a reload brings it back, and the last one fails the item.
    options.onRunEnded?.();
    const message = `process '${item.processId}' is not defined: no sync or flow has this id in the current definitions (${snapshot.digest.slice(0, 12)}); a later attempt runs it if the definitions bring it back`;
    await finish({ status: 'Failed', statistics: { ...noStatistics }, errors: [{ message }], retryable: true });
    return reread();
  }

  log.info(fields, 'item started');
  const controller = new AbortController();
  let interruption: Interruption | undefined;
  const interrupt = (why: Interruption): void => {
    if (interruption !== undefined) return;
    interruption = why;
    // The engine reports the reason as the run's message: an Error that says it.
    controller.abort(new Error(interruptionText(why)));
  };
  const onCallerAbort = (): void => interrupt({ kind: 'stopped' });
  if (options.signal?.aborted) onCallerAbort();
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const timeout =
    settings.timeoutMs === undefined
      ? undefined
      : setTimeout(() => interrupt({ kind: 'timeout', timeoutMs: settings.timeoutMs!, text: settings.timeoutText! }), settings.timeoutMs);

  let latest: Readonly<ItemStatistics> | undefined;
  let stored: Readonly<ItemStatistics> | undefined;
  const heartbeats = repeatEvery(runner.leaseMs / 3, async () => {
    const statistics = latest === stored ? undefined : latest;
    try {
      const held = await recordProgress(db, {
        id: item.id,
        workerId,
        attempt: item.attempts,
        leaseMs: runner.leaseMs,
        ...(statistics === undefined ? {} : { statistics }),
      });
      if (held) stored = statistics ?? stored;
      else interrupt({ kind: 'lost' });
    } catch (error) {
      // The lease still runs for two more heartbeats; a database that stays away loses the item to the reaper.
      log.warn({ ...fields, err: error }, 'heartbeat failed; retrying at the next one');
    }
  });

  let outcome: RunOutcome | undefined;
  let thrown: unknown;
  try {
    outcome = await runner.runProcess(
      { snapshot, connections: runner.connections, db, log },
      {
        processId,
        sourceId: item.sourceId,
        whereClause: item.whereClause,
        actionParams: item.actionParams,
        signal: controller.signal,
        onProgress: (statistics) => {
          latest = statistics;
          options.onProgress?.(statistics);
        },
      },
    );
  } catch (error) {
    thrown = error;
  } finally {
    if (timeout !== undefined) clearTimeout(timeout);
    options.signal?.removeEventListener('abort', onCallerAbort);
    await heartbeats.stop();
    options.onRunEnded?.();
  }
  const durationMs = Math.round(performance.now() - started);
  const statistics = { ...(outcome?.statistics ?? latest ?? noStatistics) };

  if (interruption?.kind === 'lost') {
    log.warn({ ...fields, durationMs }, 'item lost: its lease ran out and the reaper took it back; the result of this run is dropped');
    return reread();
  }
  if (interruption?.kind === 'stopped' && outcome?.status !== 'Complete') {
    // The caller stops and releases the item; the interrupted attempt is not the item's failure.
    log.info({ ...fields, durationMs }, 'item interrupted by shutdown; left for release');
    return reread();
  }
  if (interruption?.kind === 'timeout' && outcome?.status !== 'Complete') {
    const message = `the run took longer than its timeout of ${interruption.text} and was stopped`;
    await finish(
      {
        status: 'Failed',
        statistics,
        errors: [{ message }, ...(outcome?.errors ?? []).filter((error) => error.sourceId !== undefined)],
        retryable: true,
      },
      durationMs,
    );
    return reread();
  }
  if (outcome === undefined) {
    // A bug in the engine, not a failure of the run: say so on the item, keep the details in the log.
    log.error({ ...fields, durationMs, err: thrown }, 'the run threw an unexpected error');
    const message = `the run stopped on an internal error (${errorName(thrown)}); the runtime log of worker ${workerId} has the details`;
    await finish({ status: 'Failed', statistics, errors: [{ message }], retryable: false }, durationMs);
    return reread();
  }
  await finish({ ...outcome, statistics }, durationMs);
  return reread();

  /** Records the outcome on the item, as the worker holding it. */
  async function finish(result: RunOutcome, durationMs = 0): Promise<void> {
    const attempt = {
      id: item.id,
      workerId,
      attempt: item.attempts,
      statistics: result.statistics,
      errors: result.errors as readonly NewItemError[],
      ...(startedAt === undefined ? {} : { startedAt }),
    };
    let status: string | undefined;
    if (result.status === 'Complete' || !result.retryable) {
      status = (await untilRecorded(() => completeItem(db, { ...attempt, status: result.status }))) ? result.status : undefined;
    } else {
      const failed = await untilRecorded(() => failAttempt(db, { ...attempt, retry: settings?.retry ?? defaultRetryPolicy }));
      status = failed?.status;
      if (failed?.status === 'Pending') log.info({ ...fields, runAfter: failed.runAfter.toISOString() }, 'item will be retried');
    }
    const summary = { ...fields, statistics: result.statistics, errors: result.errors.length, durationMs };
    if (status === undefined) log.warn(summary, 'item finished, but was no longer held by this worker; the result is dropped');
    else {
      log.info({ ...summary, status }, 'item finished');
      runner.metrics?.observeRun({ snapshot, processId: item.processId, result: result.status, durationMs, statistics: result.statistics });
    }
    // Its place under the concurrency limit is free: items waiting for it may be claimed now, by
    // any daemon (NOTIFY on PostgreSQL) or a direct run waiting in this process.
    if (item.concurrencyKey !== null) announceFreedPlace(db);
  }

  /**
   * Records the end, trying again while the runtime database is away (a restart, a failover, a
   * full disk freed), for half a lease: the item is still held meanwhile (its last heartbeat left
   * at least two thirds of a lease), so no reaper runs it again, and the run's work is not done
   * twice for an outage of a few seconds. Past that, or when the process stops, the error goes to
   * the caller and the reaper takes the item back.
   */
  async function untilRecorded<T>(write: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + runner.leaseMs / 2;
    for (;;) {
      try {
        return await write();
      } catch (error) {
        const failure = runtimeDatabaseFailure(error);
        if (failure === undefined || failure.kind === 'closed' || options.signal?.aborted || Date.now() + recordRetryMs > deadline)
          throw error;
        log.warn(
          { ...fields, reason: failure.reason },
          `the runtime database cannot record the end of the item (${failure.reason}); trying again in ${recordRetryMs}ms`,
        );
        await new Promise((resolve) => setTimeout(resolve, recordRetryMs));
      }
    }
  }
}

/** Between tries to record an item's end while the runtime database is away. */
const recordRetryMs = 1000;

function interruptionText(why: Interruption): string {
  if (why.kind === 'timeout') return `the run took longer than its timeout of ${why.text}`;
  if (why.kind === 'lost') return 'the item was taken back after its lease ran out';
  return 'the process is shutting down';
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
