/**
 * One source record in the plan of a dry run (plan-writer.ts): what the run would do with it and
 * why, in terms a reviewer reads — the values a new target record gets, each field an update
 * changes (old → new), the rule that skips it, the reason it would fail.
 */
import type { RecordData } from '../../connectors/connection.js';
import type { SyncDefinition } from '../../definitions/types.js';
import type { FieldChange } from './changed-fields.js';
import type { SkipReason } from './run-writer.js';

/**
 * - `create`: no target record matches; one would be created.
 * - `update`: it matches target records and changes at least one field of one of them.
 * - `unchanged`: it matches and every target record already holds the values it would write. A
 *   run leaves them as they are (unchanged-writes.ts): its statistics count it as skipped.
 * - `skip`: a rule of the sync leaves it out (the precondition, onNoMatch, onMatch,
 *   onMultipleMatches).
 * - `fail`: the run would fail it (its mapping, its match search, several matches under
 *   onMultipleMatches fail, a value the target refuses).
 */
export type PlannedAction = 'create' | 'update' | 'unchanged' | 'skip' | 'fail';

/** A target record an update would write. */
export interface PlannedTarget {
  /**
   * Its key; for a record an earlier source record of the run would create, as much of it as is
   * known before the system gives it (the match values when the key is generated).
   */
  key: RecordData;
  /** Set when an earlier source record of the run would create it: that record. */
  createdBy?: { position: number; sourceId: string | undefined };
  /** The fields the write changes, in the order written; empty when it changes none. */
  changes: FieldChange[];
}

export interface PlannedRecord {
  /** Its place among the records read, from 1. */
  position: number;
  /** What names it in the source (its key, first column or record-store GUID). */
  sourceId: string | undefined;
  action: PlannedAction;
  /**
   * `create`: the new record's values in canonical form — the mapped fields and the match values
   * they lack, group fields as `group[type].field`.
   */
  values?: RecordData;
  /** `create`: its key, when the values hold all of it (otherwise the system gives it). */
  key?: RecordData;
  /** `update` and `unchanged`: each target record written, with its changes. */
  targets?: PlannedTarget[];
  /** `skip`: the sync's rule that leaves it out. */
  rule?: SkipReason['rule'];
  /** `skip` and `fail`: why, in words. */
  reason?: string;
}

/** A key as a reader names the record: `C-2`, or `7, 2` for a composite key. */
export function keyText(key: Readonly<RecordData>): string {
  return Object.values(key)
    .map((value) => (value === null || value === undefined ? '∅' : typeof value === 'object' ? JSON.stringify(value) : String(value)))
    .join(', ');
}

/** Why a rule skips a record, in the sync's own terms. */
export function skipReasonText(definition: SyncDefinition, reason: SkipReason): string {
  const target = definition.target.object;
  switch (reason.rule) {
    case 'precondition':
      return `the precondition ${definition.precondition} is not met`;
    case 'onNoMatch':
      return `no ${target} matches ${definition.match?.where} (onNoMatch: skip)`;
    case 'onMatch':
      return `${target}${reason.key === undefined ? '' : ` ${keyText(reason.key)}`} matches (onMatch: skip)`;
    case 'onMultipleMatches':
      return `${reason.count} ${target} records match ${definition.match?.where} (onMultipleMatches: skip)`;
  }
}
