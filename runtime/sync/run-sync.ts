/**
 * One run of a sync (DESIGN §7): source pages → precondition → JSONata mapping → match search in
 * the target (batched per page where the match is on key equality) → create / update / skip →
 * statistics and per-record errors.
 *
 * A record's failure (its mapping throws, the target refuses its values, several targets match
 * and onMultipleMatches is fail) is counted and listed, capped at maxErrors, and the run goes on.
 * What stops the run — a source or target that cannot be reached or lost a table, a WhereClause
 * that does not fit, the signal — makes it Failed with the statistics so far.
 *
 * Statistics count source records: read = created + updated + skipped + failed for every record
 * read, including under updateAll (one source record updating three targets is one update).
 */
import type { Connection, ObjectDescription, PlaceholderValues, RecordData, WriteRequest, WriteResult } from '../../connectors/connection.js';
import { ConnectorError } from '../../connectors/connector-error.js';
import type { SyncEntry } from '../../definitions/snapshot.js';
import type { SyncDefinition } from '../../definitions/types.js';
import type { ProcessStart, RunEnvironment, RunOutcome } from '../execution/process-run.js';
import { evaluateCondition, resolvePath, type Expression } from '../expression/index.js';
import { paramPlaceholders, paramsObject, recordOrParamPlaceholders, type Params } from './action-params.js';
import { MatchIndex } from './batched-search.js';
import { equalityValues, matchPlan, type MatchPlan } from './match-plan.js';
import { prefetchPages } from './prefetch-pages.js';
import { abortMessage, isRecordRejection, RunReport, RunStop, stopFor } from './run-report.js';
import { andFilters, sourcePages, type SourceRecord } from './source-pages.js';
import { parseWhereClause, WhereClauseError } from './where-clause.js';

/** A sync's outcome, with what a flow needs to clean the record store after it. */
export interface SyncOutcome extends RunOutcome {
  recordStore: {
    /** GUIDs of the record-store records this run read. */
    read: string[];
    /** Those among them that failed (a flow keeps them for another try). */
    failed: string[];
  };
}

type Groups = NonNullable<WriteRequest['groups']>;

/** A source record past its precondition and mapping, ready to be matched and written. */
interface Mapped {
  source: SourceRecord;
  values: RecordData;
  groups: Groups;
  /** `#Field#` of the match search: the mapped record; `#params.Name#`: the ActionParams. */
  placeholders: PlaceholderValues;
}

class SyncRun {
  readonly report: RunReport;
  readonly guidsRead: string[] = [];
  readonly guidsFailed: string[] = [];
  private readonly definition: SyncDefinition;
  private readonly targetLabel: string;
  private readonly groupNames: ReadonlySet<string>;

  constructor(
    private readonly sync: SyncEntry,
    private readonly params: Params,
    private readonly target: Connection,
    private readonly description: ObjectDescription,
    private readonly plan: MatchPlan,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.definition = sync.definition;
    this.report = new RunReport(sync.definition.maxErrors);
    this.targetLabel = `${sync.definition.target.system}/${sync.definition.target.object}`;
    this.groupNames = new Set(description.groups.map((group) => group.name));
  }

  fail(source: SourceRecord, message: string): void {
    this.report.recordFailed(source.sourceId, message);
    if (source.guid !== undefined) this.guidsFailed.push(source.guid);
  }

  private checkSignal(): void {
    if (this.signal?.aborted) throw new RunStop(abortMessage(this.signal), true);
  }

  async page(page: readonly SourceRecord[]): Promise<void> {
    for (const source of page) if (source.guid !== undefined) this.guidsRead.push(source.guid);
    this.report.statistics.read += page.length;
    const mapped: Mapped[] = [];
    for (const source of page) {
      this.checkSignal();
      const ready = await this.map(source);
      if (ready !== undefined) mapped.push(ready);
    }
    const plan = this.plan;
    if (plan.kind === 'batched') {
      const tuples = mapped.map((record) => equalityValues(plan.equalities, record.placeholders));
      const found = tuples.filter((values): values is unknown[] => values !== undefined);
      let index: MatchIndex;
      try {
        index = await MatchIndex.load(this.target, this.definition.target.object, plan.equalities, found, this.signal);
      } catch (error) {
        throw stopFor(error, `searching ${this.targetLabel}`, this.signal);
      }
      for (const [i, record] of mapped.entries()) {
        this.checkSignal();
        const values = tuples[i];
        const matches = values === undefined ? [] : index.find(values);
        const equalities = values === undefined ? {} : Object.fromEntries(plan.equalities.map((e, j) => [e.field, values[j]]));
        const created = await this.apply(record, matches, matches.length, equalities);
        // Later records of this page with the same key update what this one created.
        if (created !== undefined && values !== undefined) index.add({ ...record.values, ...equalities, ...created.key });
      }
    } else {
      for (const record of mapped) {
        this.checkSignal();
        if (plan.kind === 'create') await this.apply(record, [], 0, {});
        else await this.applySearched(record, plan.where);
      }
    }
  }

  /** Precondition and mapping; undefined when the record was skipped or failed here. */
  private async map(source: SourceRecord): Promise<Mapped | undefined> {
    const { record } = source;
    if (this.sync.precondition !== undefined) {
      const scope = { field: (path: readonly string[]) => resolvePath(record, path), placeholder: recordOrParamPlaceholders(record, this.params) };
      if (!evaluateCondition(this.sync.precondition, scope)) {
        this.report.statistics.skipped += 1;
        return undefined;
      }
    }
    let result: unknown;
    try {
      result = await this.sync.mapping.evaluate(record, { params: this.params });
    } catch (error) {
      this.fail(source, `mapping: ${(error as { message?: string }).message ?? String(error)}`);
      return undefined;
    }
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      this.fail(source, `mapping: produced ${result === undefined ? 'nothing' : Array.isArray(result) ? 'an array' : JSON.stringify(result)}, not an object of target fields`);
      return undefined;
    }
    const values: RecordData = {};
    const groups: Record<string, Record<string, RecordData>> = {};
    for (const [name, value] of Object.entries(result as RecordData)) {
      if (this.groupNames.has(name) && value !== null && typeof value === 'object' && !Array.isArray(value)) groups[name] = value as Record<string, RecordData>;
      else values[name] = value;
    }
    const mapped = { ...values, ...groups };
    return { source, values, groups, placeholders: recordOrParamPlaceholders(mapped, this.params) };
  }

  /** Record-by-record search: at most 2 found tell one from several, except for updateAll. */
  private async applySearched(record: Mapped, where: Expression): Promise<void> {
    const object = this.definition.target.object;
    const all = this.definition.match?.onMultipleMatches === 'updateAll';
    const request = { filter: where, placeholders: record.placeholders, ...(this.signal === undefined ? {} : { signal: this.signal }) };
    const matches: RecordData[] = [];
    let count: number;
    try {
      for await (const page of this.target.read(object, { ...request, ...(all ? {} : { limit: 2, pageSize: 2 }) })) matches.push(...page);
      count = matches.length > 1 && this.definition.match?.onMultipleMatches === 'fail' ? await this.target.count(object, request) : matches.length;
    } catch (error) {
      if (isRecordRejection(error)) {
        // A mapped value the search cannot use (text for an Integer field): this record's problem.
        this.fail(record.source, `match search: ${error.message}`);
        return;
      }
      throw stopFor(error, `searching ${this.targetLabel}`, this.signal);
    }
    await this.apply(record, matches, count, {});
  }

  /** Creates, updates or skips per the match rules; answers what a create wrote. */
  private async apply(record: Mapped, matches: readonly RecordData[], count: number, equalities: RecordData): Promise<WriteResult | undefined> {
    const match = this.definition.match;
    const statistics = this.report.statistics;
    if (matches.length === 0) {
      if (match?.onNoMatch === 'skip') {
        statistics.skipped += 1;
        return undefined;
      }
      // With a batched match the key values go along, so the connector upserts by them: a record
      // created since the search (another run, a retry after a crash) is updated, not doubled.
      const result = await this.write(record, equalities);
      if (result !== undefined) statistics[result.action] += 1;
      return result?.action === 'created' ? result : undefined;
    }
    let targets: readonly RecordData[];
    if (matches.length === 1) {
      if (match?.onMatch === 'skip') {
        statistics.skipped += 1;
        return undefined;
      }
      targets = matches;
    } else {
      switch (match?.onMultipleMatches) {
        case 'skip':
          statistics.skipped += 1;
          return undefined;
        case 'updateFirst':
          targets = matches.slice(0, 1);
          break;
        case 'updateAll':
          targets = matches;
          break;
        default:
          this.fail(record.source, `${count} records of ${this.targetLabel} match ${this.definition.match?.where}; onMultipleMatches is fail, so none was written`);
          return undefined;
      }
    }
    let created = 0;
    for (const target of targets) {
      // The found record's own key identifies it: the match fields may not be unique.
      const result = await this.write(record, Object.fromEntries(this.description.key.map((field) => [field, target[field]])));
      if (result === undefined) return undefined;
      if (result.action === 'created') created += 1;
    }
    // A record deleted since the search is created again by the connector; count what happened.
    statistics[created === targets.length ? 'created' : 'updated'] += 1;
    return undefined;
  }

  /** One write; a rejected record fails alone, anything else stops the run. */
  private async write(record: Mapped, match: RecordData): Promise<WriteResult | undefined> {
    try {
      return await this.target.write(this.definition.target.object, { values: record.values, groups: record.groups, match });
    } catch (error) {
      if (isRecordRejection(error)) {
        this.fail(record.source, error.message);
        return undefined;
      }
      throw stopFor(error, `writing ${this.targetLabel}`, this.signal);
    }
  }
}

/** The WhereClause of a start as a filter; a bad one stops the run for good. */
function whereClauseFilter(environment: RunEnvironment, sync: SyncEntry, text: string | null | undefined): Expression | undefined {
  if (text === null || text === undefined || text.trim() === '') return undefined;
  try {
    return parseWhereClause(environment.snapshot, sync.definition.id, text);
  } catch (error) {
    if (error instanceof WhereClauseError) throw new RunStop(error.message, false, { cause: error });
    throw error;
  }
}

async function connect(environment: RunEnvironment, systemId: string, role: string, signal: AbortSignal | undefined): Promise<Connection> {
  const system = environment.snapshot.systems.get(systemId);
  if (system === undefined) throw new RunStop(`${role} system '${systemId}' is not defined`, false);
  try {
    return await environment.connections.get(system.definition);
  } catch (error) {
    throw stopFor(error, `connecting to ${role} system '${systemId}'`, signal);
  }
}

/** Runs `sync` for `start` to its outcome; never throws for a failed run. */
export async function runSync(environment: RunEnvironment, start: ProcessStart, sync: SyncEntry): Promise<SyncOutcome> {
  const definition = sync.definition;
  const signal = start.signal;
  const params = paramsObject(start.actionParams);
  const sourceId = start.sourceId === null || start.sourceId === undefined || start.sourceId === '' ? undefined : start.sourceId;
  const sourceLabel = definition.source.recordStore ? `the record store of ${definition.id}` : `${definition.source.system}/${definition.source.object ?? definition.source.query}`;
  let run: SyncRun | undefined;
  const early = new RunReport(definition.maxErrors);
  try {
    const filter = andFilters(sync.where, whereClauseFilter(environment, sync, start.whereClause));
    const target = await connect(environment, definition.target.system, 'target', signal);
    let description: ObjectDescription;
    try {
      description = target.describe(definition.target.object);
    } catch (error) {
      throw stopFor(error, `target ${definition.target.system}/${definition.target.object}`, signal);
    }
    const source = definition.source.recordStore ? undefined : await connect(environment, definition.source.system!, 'source', signal);
    run = new SyncRun(sync, params, target, description, matchPlan(sync.matchWhere, description), signal);
    const pages = prefetchPages(
      sourcePages({ snapshot: environment.snapshot, sync, connection: source, db: environment.db, filter, placeholders: paramPlaceholders(params), sourceId, signal }),
    );
    for (;;) {
      let next: IteratorResult<SourceRecord[]>;
      try {
        if (signal?.aborted) throw new RunStop(abortMessage(signal), true);
        next = await pages.next();
      } catch (error) {
        await pages.return(undefined).catch(() => undefined);
        throw stopFor(error, `reading ${sourceLabel}`, signal);
      }
      if (next.done) break;
      try {
        await run.page(next.value);
      } catch (error) {
        await pages.return(undefined).catch(() => undefined);
        throw error;
      }
      start.onProgress?.({ ...run.report.statistics });
    }
    if (sourceId !== undefined && run.report.statistics.read === 0) {
      // Nothing to retry: the record is not there (or not under the sync's filter). Complete, so a
      // webhook start does not retry for hours, but said, so nobody believes it was synced.
      run.report.note(sourceId, `source record '${sourceId}' was not found in ${sourceLabel}${filter === undefined ? '' : ' under the sync\'s where and the WhereClause'}; nothing was synced`);
    }
    start.onProgress?.({ ...run.report.statistics });
    return { ...run.report.complete(), recordStore: { read: run.guidsRead, failed: run.guidsFailed } };
  } catch (error) {
    const stop = stopFor(error, `sync '${definition.id}'`, signal);
    // An expected stop (a system away, a bad WhereClause) is said in one line; only a surprise keeps its stack.
    const expected = error instanceof RunStop || error instanceof ConnectorError;
    environment.log?.warn({ sync: definition.id, retryable: stop.retryable, ...(expected ? {} : { err: error }) }, `sync ${definition.id} failed: ${stop.message}`);
    const report = run?.report ?? early;
    return { ...report.failed(stop), recordStore: { read: run?.guidsRead ?? [], failed: run?.guidsFailed ?? [] } };
  }
}
