/**
 * `syncline run SYNC_ID --dry-run` — the sync read and matched for real, nothing written, and the
 * plan printed (runtime/sync/plan-sync.ts): records to create with their values, to update with
 * each changed field (old → new), unchanged, skipped by a rule, failing with the reason; then the
 * statistics a run would count. `--format json` prints one JSON document instead (plan-json.ts);
 * `--verbose` lists unchanged records and every record of each section. A reviewer sees what a
 * changed mapping does to the target before it is merged.
 *
 * Nothing is written anywhere: not the target, not the source (a drop folder's files stay), not
 * the runtime database — no queue item, no run history, and a record store is read, not emptied.
 * The runtime database is opened only for a sync that reads its record store, and then read-only;
 * so a dry run takes no turn under the sync's concurrency limit either.
 *
 * A flow is refused (exit 2): its steps read what earlier steps write, which a plan does not do.
 *
 * Exit codes: 0 the plan is complete and no record would fail; 1 some would fail, or the run
 * could not go on (the source unreachable…); 2 unusable arguments.
 */
import { ConnectionPool } from '../../connectors/connection-pool.js';
import { databaseSetting, DatabaseUrlError } from '../database/database-url.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import type { RunOutcome } from '../execution/process-run.js';
import { createLogger } from '../log.js';
import { connectionContext } from '../settings.js';
import { planSync } from '../sync/plan-sync.js';
import { openReadableDatabase } from './open-runtime-database.js';
import { PlanJson } from './plan-json.js';
import { PlanText, type PlanSubject } from './plan-text.js';
import { ProgressLine } from './progress-line.js';
import { prepareRun, type RunFlags } from './run-start.js';
import { sourceTotal } from './source-total.js';

export async function dryRunCommand(processId: string, flags: RunFlags): Promise<number> {
  // Commander takes text or json only (main.ts).
  const format = flags.format ?? 'text';
  const prepared = await prepareRun(processId, flags, 'not planning');
  if (typeof prepared === 'number') return prepared;
  const { definitionsDir, snapshot, actionParams, whereClause } = prepared;
  const sync = snapshot.syncs.get(processId);
  if (sync === undefined) {
    const steps = snapshot.flows.get(processId)!.definition.steps.map((step) => step.sync ?? `flow ${step.flow}`);
    process.stderr.write(
      `error: --dry-run plans a sync, and '${processId}' is a flow: its steps read what the steps before them write, which a plan does not write; dry-run its syncs one by one (${steps.join(', ')})\n`,
    );
    return 2;
  }

  let db: RuntimeDatabase | undefined;
  if (sync.definition.source.recordStore) {
    let location: ReturnType<typeof databaseSetting>;
    try {
      location = databaseSetting(flags.db);
    } catch (error) {
      if (!(error instanceof DatabaseUrlError)) throw error;
      process.stderr.write(`error: ${error.message}\n`);
      return 2;
    }
    db = await openReadableDatabase(location);
    if (db === undefined) return 1;
  }

  const subject: PlanSubject = {
    sync: sync.definition,
    actionParams,
    ...(flags.where === undefined ? {} : { whereClause: flags.where }),
  };
  const log = createLogger(process.env.SYNCLINE_LOG_LEVEL ?? 'warn', 'stderr');
  // A SQLite filename is relative to the definitions, not to where the process was started.
  const connections = new ConnectionPool(connectionContext(definitionsDir));
  const progress = new ProgressLine(process.stderr, processId);
  const stop = new AbortController();
  const interrupt = (): void => stop.abort(new Error('interrupted by the operator (the dry run was stopped)'));
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const text = format === 'text' ? new PlanText(subject, flags.verbose ?? false) : undefined;
  const json = format === 'json' ? new PlanJson(process.stdout, subject) : undefined;
  try {
    progress.start('dry run', await sourceTotal(snapshot, processId, connections, actionParams, whereClause, db));
    const started = performance.now();
    json?.start();
    const outcome: RunOutcome = await planSync(
      { snapshot, connections, log, ...(db === undefined ? {} : { db }) },
      {
        processId,
        ...(flags.where === undefined ? {} : { whereClause: flags.where }),
        actionParams,
        signal: stop.signal,
        // Called as each page ends: the JSON plan writes that page's records then.
        onProgress: (statistics) => {
          progress.update(statistics);
          json?.flush();
        },
      },
      sync,
      (record) => (text ?? json)!.add(record),
    );
    progress.end();
    if (text !== undefined) process.stdout.write(text.render(outcome, performance.now() - started));
    json?.end(outcome);
    return outcome.status === 'Complete' && outcome.statistics.failed === 0 ? 0 : 1;
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    progress.end();
    await connections.closeAll();
    await db?.close();
  }
}
