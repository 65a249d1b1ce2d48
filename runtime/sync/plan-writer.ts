/**
 * The writer of a dry run (run-writer.ts): each write the run decides is checked as the target
 * connector checks it before asking its system (Connection.checkWrite) — a refusal fails the
 * record as a run would — and compared with the record it would update (changed-fields.ts).
 * Nothing is written. Each source record's fate becomes one PlannedRecord (planned-record.ts).
 *
 * A plan writes nothing, yet a later record must find what an earlier one would create, as a run
 * finds what it wrote: each planned create is kept (planned-creates.ts), and a later record
 * matching it is planned as its update. An update is applied to the
 * record it is planned for, so a later record that finds the same record (a planned create, or a
 * stored record of the same page) is compared with the values the earlier one leaves; a stored
 * record found again by a later page's search is compared with what the target holds.
 *
 * Memory grows with the records the plan would create (their values are kept), not with the
 * records read.
 */
import type { Connection, ObjectDescription, RecordData, WriteRequest } from '../../connectors/connection.js';
import type { ConnectorError } from '../../connectors/connector-error.js';
import type { SyncEntry } from '../../definitions/snapshot.js';
import type { FieldType } from '../../definitions/types.js';
import { ChangedFields, writtenValue } from './changed-fields.js';
import type { MatchPlan } from './match-plan.js';
import { PlannedCreates } from './planned-creates.js';
import { skipReasonText, type PlannedRecord, type PlannedTarget } from './planned-record.js';
import type { PendingWrite, RecordFate, RunWriter, RunWriteResult } from './run-writer.js';
import { UnchangedCheck } from './unchanged-writes.js';
import { setOwnField } from '../../connectors/records/own-field.js';

/** What the plan worked out for one request of a write, until its record's fate is settled. */
type PlannedRequest = { kind: 'create'; record: RecordData; values: RecordData } | { kind: 'update'; target: PlannedTarget };

export interface PlanRun {
  sync: SyncEntry;
  target: Connection;
  object: string;
  description: ObjectDescription;
  plan: MatchPlan;
}

export class PlanWriter implements RunWriter {
  readonly planned: PlannedCreates;
  private readonly changed: ChangedFields;
  private readonly unchanged: UnchangedCheck;
  private readonly fieldTypes: ReadonlyMap<string, FieldType>;
  private readonly groupTypes: ReadonlyMap<string, ReadonlyMap<string, FieldType>>;
  /** Requests of the write under way, with what was worked out for them. */
  private readonly requests = new Map<WriteRequest, PlannedRequest>();
  /** The source record that would create each planned record. */
  private readonly creators = new WeakMap<RecordData, NonNullable<PlannedTarget['createdBy']>>();

  constructor(
    private readonly run: PlanRun,
    private readonly onPlanned: (record: PlannedRecord) => void,
  ) {
    this.changed = new ChangedFields(run.description);
    this.unchanged = new UnchangedCheck(run.description);
    this.planned = new PlannedCreates(run.plan);
    this.fieldTypes = new Map(run.description.fields.map((field) => [field.name, field.type]));
    this.groupTypes = new Map(
      run.description.groups.map((group) => [group.name, new Map(group.fields.map((field) => [field.name, field.type]))]),
    );
  }

  async write(writes: readonly PendingWrite[]): Promise<Array<RunWriteResult | ConnectorError>> {
    // The run settles every record of a call before it makes the next: what is left is of records that failed.
    this.requests.clear();
    const answers: Array<RunWriteResult | ConnectorError> = [];
    for (const write of writes) {
      for (const [index, request] of write.requests.entries()) {
        const found = write.found[index];
        const refusal = this.run.target.checkWrite(this.run.object, request, found === undefined ? 'create' : 'update');
        if (refusal !== undefined) answers.push(refusal);
        else if (found === undefined) {
          const { record, values } = this.newRecord(request);
          this.requests.set(request, { kind: 'create', record, values });
          answers.push({ action: 'created', key: this.keyOf(record) ?? {} });
        } else {
          // As a run decides it (unchanged-writes.ts): a write that changes nothing is left out.
          const leftAsIs = this.unchanged.holds(found, request);
          const target = this.update(found, request);
          this.requests.set(request, { kind: 'update', target });
          answers.push({ action: leftAsIs ? 'unchanged' : 'updated', key: target.key });
        }
      }
    }
    return answers;
  }

  settled(fate: RecordFate): void {
    if (fate.result === 'written') {
      this.onPlanned(this.written(fate.write, fate.results));
      return;
    }
    const { source } = fate;
    const place = { position: source.position ?? 0, sourceId: source.sourceId };
    if (fate.result === 'failed') this.onPlanned({ ...place, action: 'fail', reason: fate.message });
    else
      this.onPlanned({ ...place, action: 'skip', rule: fate.reason.rule, reason: skipReasonText(this.run.sync.definition, fate.reason) });
  }

  private written(write: PendingWrite, results: readonly RunWriteResult[]): PlannedRecord {
    const { source } = write.record;
    const place = { position: source.position ?? 0, sourceId: source.sourceId };
    const planned = write.requests.map((request) => this.requests.get(request));
    const [first] = planned;
    if (first?.kind === 'create') {
      this.remember(write, first.record, place);
      const key = this.keyOf(first.record);
      return { ...place, action: 'create', ...(key === undefined ? {} : { key }), values: first.values };
    }
    if (results.every((result) => result.action === 'skipped')) {
      return { ...place, action: 'skip', rule: 'onMatch', reason: skipReasonText(this.run.sync.definition, { rule: 'onMatch' }) };
    }
    const targets = planned.flatMap((request) => (request?.kind === 'update' ? [request.target] : []));
    return { ...place, action: results.every((result) => result.action === 'unchanged') ? 'unchanged' : 'update', targets };
  }

  /** Keeps a planned create for later records to find. */
  private remember(write: PendingWrite, record: RecordData, creator: NonNullable<PlannedTarget['createdBy']>): void {
    this.creators.set(record, creator);
    this.planned.add(record, write.requests[0]!.match ?? {});
  }

  /** The record a create would make (the match values, then the values and group entries), and its values by field label. */
  private newRecord(request: WriteRequest): { record: RecordData; values: RecordData } {
    const record: RecordData = {};
    for (const [name, raw] of Object.entries(request.match ?? {})) {
      const type = this.fieldTypes.get(name);
      if (type !== undefined && raw !== null && raw !== undefined) record[name] = writtenValue(type, raw);
    }
    this.apply(record, request);
    const values: RecordData = {};
    for (const [name, value] of Object.entries(record)) {
      if (!this.groupTypes.has(name)) setOwnField(values, name, value);
      else {
        for (const [type, entry] of Object.entries(value as Record<string, RecordData>)) {
          for (const [field, inner] of Object.entries(entry)) values[`${name}[${type}].${field}`] = inner;
        }
      }
    }
    return { record, values };
  }

  /** The update of `found`: its changes, then applied to it so that later records of the run see them. */
  private update(found: RecordData, request: WriteRequest): PlannedTarget {
    const changes = this.changed.list(found, request);
    const createdBy = this.creators.get(found);
    const key = this.keyOf(found) ?? { ...(request.match ?? {}) };
    this.apply(found, request);
    return { key, changes, ...(createdBy === undefined ? {} : { createdBy }) };
  }

  /** Sets what the request writes on the record in memory, in canonical form: its fields, its group entries merged by type. */
  private apply(record: RecordData, request: WriteRequest): void {
    for (const [name, raw] of Object.entries(request.values)) {
      const type = this.fieldTypes.get(name);
      if (type !== undefined && raw !== undefined) record[name] = writtenValue(type, raw);
    }
    for (const [group, entries] of Object.entries(request.groups ?? {})) {
      const types = this.groupTypes.get(group)!;
      const existing = record[group];
      const stored = (existing !== null && typeof existing === 'object' ? existing : {}) as Record<string, RecordData>;
      record[group] = stored;
      for (const [type, entry] of Object.entries(entries)) {
        const merged: RecordData = { ...(stored[type] ?? {}) };
        for (const [name, raw] of Object.entries(entry)) if (raw !== undefined) merged[name] = writtenValue(types.get(name)!, raw);
        stored[type] = merged;
      }
    }
  }

  /** The record's key, when it holds all of it. */
  private keyOf(record: RecordData): RecordData | undefined {
    const key = this.run.description.key;
    if (key.some((name) => record[name] === undefined || record[name] === null)) return undefined;
    return Object.fromEntries(key.map((name) => [name, record[name]]));
  }
}
