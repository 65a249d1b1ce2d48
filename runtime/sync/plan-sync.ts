/**
 * A dry run of a sync (`syncline run SYNC --dry-run`): the run exactly as run-sync.ts makes it —
 * the source read under the sync's where and the start's WhereClause and ActionParams, the
 * precondition, the mapping, the match search in the target — with its writes planned instead of
 * made (plan-writer.ts). Nothing is written to the target, the source is not settled (a drop
 * folder's files stay where they are), and a record store is read, not emptied: that is
 * run-process.ts's part, which a plan does not go through. No queue item is made either: the
 * runtime database is needed only to read a record store.
 *
 * The outcome's statistics are what the run would count (an unchanged record counts as updated,
 * as a run writes it); each source record's plan goes to `onPlanned` as its fate is settled —
 * per page, the records the precondition or the mapping leave out come before the others.
 */
import type { ProcessStart, RunOutcome } from '../execution/process-run.js';
import type { SyncEntry } from '../../definitions/snapshot.js';
import { PlanWriter } from './plan-writer.js';
import type { PlannedRecord } from './planned-record.js';
import { runSync, type SyncEnvironment } from './run-sync.js';

/** What a dry run starts from: a run's start without records given in memory (a plan reads its source). */
export type PlanStart = Omit<ProcessStart, 'records' | 'onRecord'>;

export async function planSync(
  environment: SyncEnvironment,
  start: PlanStart,
  sync: SyncEntry,
  onPlanned: (record: PlannedRecord) => void,
): Promise<RunOutcome> {
  const { recordStore: _read, ...outcome } = await runSync(environment, start, sync, {
    writer: (run) => new PlanWriter({ ...run, sync }, onPlanned),
    settles: false,
  });
  return outcome;
}
