/**
 * The sync engine over records given in memory instead of its source (a webhook's saveWithSync):
 * the sync's `where`, precondition, mapping, match search and create / update / skip, exactly as a
 * run over its source, with what became of each record.
 */
import type { RecordOutcome, RunEnvironment } from '../execution/process-run.js';
import type { SyncEntry } from '../../definitions/snapshot.js';
import type { ActionParam } from '../queue/queue-item.js';
import { runSync, type SyncOutcome } from './run-sync.js';

/** One given record's fate, by position. */
export interface GivenRecordOutcome {
  /** 0-based position among the given records. */
  index: number;
  result: RecordOutcome['result'];
  /** Keys of the target records written. */
  keys?: ReadonlyArray<Record<string, unknown>>;
  /** Why it failed, or why it was skipped when the sync's where or precondition left it out. */
  message?: string;
}

export interface RecordsOutcome {
  outcome: SyncOutcome;
  /** One per given record, in order; empty when the run stopped (see `outcome`). */
  records: GivenRecordOutcome[];
}

export interface RecordsStart {
  actionParams?: readonly ActionParam[];
  signal?: AbortSignal;
}

export async function runSyncOnRecords(
  environment: RunEnvironment,
  sync: SyncEntry,
  records: ReadonlyArray<Record<string, unknown>>,
  start: RecordsStart = {},
): Promise<RecordsOutcome> {
  const seen = new Map<number, GivenRecordOutcome>();
  const outcome = await runSync(
    environment,
    {
      processId: sync.definition.id,
      records,
      ...(start.actionParams === undefined ? {} : { actionParams: start.actionParams }),
      ...(start.signal === undefined ? {} : { signal: start.signal }),
      onRecord: (record) => {
        // Given records are numbered from 1 (source-pages.ts).
        const index = Number(record.sourceId) - 1;
        seen.set(index, {
          index,
          result: record.result,
          ...(record.keys === undefined ? {} : { keys: record.keys }),
          ...(record.message === undefined ? {} : { message: record.message }),
        });
      },
    },
    sync,
  );
  if (outcome.status === 'Failed') return { outcome, records: [] };
  // The engine reports what the match rules decided; a record it never reported was left out
  // before that, by the sync's where or its precondition. It was read, so it counts as skipped.
  const left = records.length - outcome.statistics.read;
  const statistics = { ...outcome.statistics, read: records.length, skipped: outcome.statistics.skipped + left };
  const results = records.map(
    (_, index): GivenRecordOutcome =>
      seen.get(index) ?? { index, result: 'skipped', message: `left out by the where or the precondition of sync '${sync.definition.id}'` },
  );
  return { outcome: { ...outcome, statistics }, records: results };
}
