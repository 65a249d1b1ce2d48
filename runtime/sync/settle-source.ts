/**
 * Settling a sync's source after a run (Connection.settle): a connector that keeps something of a
 * read — the file connector, the files of a drop folder — is told that the run used every record
 * it read, so it may put that away (archive the files). Only a run that read its source object
 * whole gets a receipt for the read, and only one that ended Complete with no failed record
 * settles it; the sync engine knows no connector by name.
 */
import type { Connection, ReadReceipt } from '../../connectors/connection.js';
import type { SyncEntry } from '../../definitions/snapshot.js';
import type { ProcessStart, RunEnvironment } from '../execution/process-run.js';
import type { RunReport } from './run-report.js';

/**
 * A receipt for the source read when the run reads its source object whole and its connector can
 * settle: not for an ad-hoc start of one record, a WhereClause, or ActionParams the sync's where
 * reads — those runs see part of the source, and settling it would put away records they never
 * looked at. (Records the sync's own where leaves out are part of reading it whole.)
 */
export function settleReceipt(source: Connection | undefined, sync: SyncEntry, start: ProcessStart): ReadReceipt | undefined {
  const { source: from } = sync.definition;
  if (source?.settle === undefined || from.object === undefined || from.recordStore || start.records !== undefined) return undefined;
  if ((start.sourceId ?? '') !== '' || (start.whereClause ?? '').trim() !== '') return undefined;
  if ((start.actionParams?.length ?? 0) > 0 && (from.where ?? '').includes('#params.')) return undefined;
  return { completed: [] };
}

/** Settles the source after a run that used every record it read; a failure is noted, and the run stays Complete. */
export async function settleSource(
  environment: RunEnvironment,
  sync: SyncEntry,
  source: Connection,
  receipt: ReadReceipt,
  report: RunReport,
): Promise<void> {
  const object = sync.definition.source.object!;
  try {
    await source.settle!(object, receipt);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    report.note(
      undefined,
      `settling ${sync.definition.source.system}/${object} after the run failed: ${message}; it is read again next run`,
    );
    environment.log?.warn({ sync: sync.definition.id, err: error }, `sync ${sync.definition.id}: settling its source failed: ${message}`);
  }
}
