/**
 * Settling a sync's source after a run (Connection.settle): a connector that keeps something of a
 * read — the file connector, the files of a drop folder — is told that the run used every record
 * it read, so it may put that away (archive the files). Only a run that read its source object
 * whole gets a receipt for the read, and only one that ended Complete with no failed record
 * settles it; the sync engine knows no connector by name.
 */
import type { Connection, ReadReceipt } from '../../connectors/connection.js';
import { collectPlaceholders, type Expression } from '../../definitions/expression/index.js';
import type { SyncEntry } from '../../definitions/snapshot.js';
import type { ProcessStart, RunEnvironment } from '../execution/process-run.js';
import type { RunReport } from './run-report.js';

/**
 * A receipt for the source read when the run reads its source object whole and its connector can
 * settle: not for an ad-hoc start of one record, nor a WhereClause — those runs see part of the
 * source, and settling it would put away records they never looked at. (Records the sync's own
 * where or precondition leaves out are part of reading it whole.)
 *
 * Nor for a sync whose where or precondition reads `#params.…#`, whether or not the start gave
 * ActionParams: with them, the run selects what its parameters say, and the records of other
 * values are for other runs; without them, the placeholders are null and the run selects
 * something its author never meant. Either way what is left out is not the sync's own choice.
 */
export function settleReceipt(source: Connection | undefined, sync: SyncEntry, start: ProcessStart): ReadReceipt | undefined {
  const { source: from } = sync.definition;
  if (source?.settle === undefined || from.object === undefined || from.recordStore || start.records !== undefined) return undefined;
  if ((start.sourceId ?? '') !== '' || (start.whereClause ?? '').trim() !== '') return undefined;
  if (readsParams(sync.where) || readsParams(sync.precondition)) return undefined;
  return { completed: [] };
}

function readsParams(expression: Expression | undefined): boolean {
  return expression !== undefined && collectPlaceholders(expression).some((placeholder) => placeholder.path[0] === 'params');
}

/** Settles the source after a run that used every record it read; a failure is noted, and the run stays Complete. */
export async function settleSource(
  environment: Pick<RunEnvironment, 'log'>,
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
