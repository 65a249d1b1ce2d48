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
import type { Connection, ObjectDescription, RecordData, WriteRequest } from '../../connectors/connection.js';
import { ConnectorError } from '../../connectors/connector-error.js';
import type { SyncEntry } from '../../definitions/snapshot.js';
import type { SyncDefinition } from '../../definitions/types.js';
import type { ProcessStart, RecordOutcome, RunEnvironment, RunOutcome } from '../execution/process-run.js';
import { evaluateCondition, resolvePath, type Expression } from '../../definitions/expression/index.js';
import { evaluateMappingNow, NOT_NOW } from '../../definitions/mapping/compile-mapping.js';
import { paramPlaceholders, paramsObject, recordOrParamPlaceholders, type Params } from './action-params.js';
import { MatchIndex } from './batched-search.js';
import { equalityValues, matchPlan, type Equality, type MatchPlan } from './match-plan.js';
import { matchesOnWrite } from './match-on-write.js';
import { prefetchPages } from './prefetch-pages.js';
import { abortMessage, isRecordRejection, RunReport, RunStop, stopFor } from './run-report.js';
import {
  targetWriter,
  type Mapped,
  type PendingWrite,
  type RecordFate,
  type RunWriter,
  type RunWriteResult,
  type SkipReason,
} from './run-writer.js';
import { settleReceipt, settleSource } from './settle-source.js';
import { andFilters, sourcePages, type SourceRecord } from './source-pages.js';
import { CursorRun } from './sync-cursor.js';
import { skipUnchanged } from './unchanged-writes.js';
import { parseWhereClause, WhereClauseError } from './where-clause.js';
import { setOwnField } from '../../connectors/records/own-field.js';

/** A sync's outcome, with what a flow needs to clean the record store after it. */
export interface SyncOutcome extends RunOutcome {
  recordStore: {
    /** GUIDs of the record-store records this run read. */
    read: string[];
    /** Those among them that failed (a flow keeps them for another try). */
    failed: string[];
  };
}

class SyncRun {
  readonly report: RunReport;
  readonly guidsRead: string[] = [];
  readonly guidsFailed: string[] = [];
  /** Records created because a match value was null (it matches no record): how many, and the first source ids. */
  private readonly unmatchable = { count: 0, sourceIds: [] as string[] };
  private readonly definition: SyncDefinition;
  private readonly targetLabel: string;
  private readonly groupNames: ReadonlySet<string>;
  /** `$params` for the mapping, made once per run. */
  private bindings: { params: Params } | undefined;
  /** Whether a page is written before it is searched (match-on-write.ts). */
  private readonly matchOnWrite: boolean;
  /**
   * Whether the writes leave a record that already holds their values as it is themselves
   * (Connection.leavesUnchanged), comparing inside their own transaction, so that writing first
   * loses nothing: not for records given to the run (written as given), nor for a target with
   * groups, whose entries the connection does not compare.
   */
  private readonly writesLeaveUnchanged: boolean;
  /**
   * Whether the next page is written before it is searched. Where the writes leave unchanged
   * records themselves, always (one lookup per page, first run or repeat). Elsewhere only while the
   * pages before it found nothing to match: a write-first page cannot see that a matched record
   * already holds its values (unchanged-writes.ts needs the search's records), so a page that
   * updates turns searching back on.
   */
  private writeFirst: boolean;
  /** The start's per-record observer (a webhook answering per record); most runs have none. */
  onRecord: ((outcome: RecordOutcome) => void) | undefined;

  constructor(
    private readonly sync: SyncEntry,
    private readonly params: Params,
    private readonly target: Connection,
    private readonly description: ObjectDescription,
    private readonly plan: MatchPlan,
    private readonly signal: AbortSignal | undefined,
    private readonly writer: RunWriter,
    leaveUnchanged: boolean,
  ) {
    this.definition = sync.definition;
    this.report = new RunReport(sync.definition.maxErrors);
    this.targetLabel = `${sync.definition.target.system}/${sync.definition.target.object}`;
    this.groupNames = new Set(description.groups.map((group) => group.name));
    this.matchOnWrite = plan.kind === 'batched' && matchesOnWrite(sync.definition, writer);
    this.writesLeaveUnchanged = this.matchOnWrite && leaveUnchanged && target.leavesUnchanged === true && description.groups.length === 0;
    this.writeFirst = this.writesLeaveUnchanged;
  }

  fail(source: SourceRecord, message: string): void {
    this.report.recordFailed(source.sourceId, message);
    if (source.guid !== undefined) this.guidsFailed.push(source.guid);
    this.onRecord?.({ sourceId: source.sourceId, result: 'failed', message });
    this.settled({ result: 'failed', source, message });
  }

  /** Counts a record the match rules skip. */
  private skip(record: Mapped, reason: SkipReason): undefined {
    this.report.statistics.skipped += 1;
    this.onRecord?.({ sourceId: record.source.sourceId, result: 'skipped' });
    this.settled({ result: 'skipped', source: record.source, reason });
    return undefined;
  }

  private settled(fate: RecordFate): void {
    this.writer.settled?.(fate);
  }

  private checkSignal(): void {
    if (this.signal?.aborted) throw new RunStop(abortMessage(this.signal), true);
  }

  async page(page: readonly SourceRecord[]): Promise<void> {
    for (const [index, source] of page.entries()) {
      source.position = this.report.statistics.read + index + 1;
      if (source.guid !== undefined) this.guidsRead.push(source.guid);
    }
    this.report.statistics.read += page.length;
    let mapped: Mapped[] = [];
    for (const source of page) {
      this.checkSignal();
      const now = this.map(source);
      const ready = now instanceof Promise ? await now : now;
      if (ready !== undefined) mapped.push(ready);
    }
    const plan = this.plan;
    // Written without a search first; what the writes refused is searched below, as always.
    if (plan.kind === 'batched' && this.writeFirst) {
      const updated = this.report.statistics.updated;
      mapped = await this.writeMatching(mapped, plan.equalities);
      if (this.report.statistics.updated > updated && !this.writesLeaveUnchanged) this.writeFirst = false;
    }
    if (plan.kind === 'batched') {
      const tuples = mapped.map((record) => equalityValues(plan.equalities, record.placeholders));
      const found = tuples.filter((values): values is unknown[] => values !== undefined);
      let index: MatchIndex;
      try {
        // A value the target refuses in a search (NUL in PostgreSQL text) fails its own records
        // below, as searched one by one; the page's other records are matched and written as usual.
        index = await MatchIndex.load(this.target, this.definition.target.object, plan.equalities, found, this.signal, isRecordRejection);
      } catch (error) {
        throw stopFor(error, `searching ${this.targetLabel}`, this.signal);
      }
      const writes: PendingWrite[] = [];
      // Match values this page creates: a later record with the same values finds that record
      // (writeMany writes in order and looks again), so the match rules treat it as one match. A
      // plan writes nothing: what its earlier records would create, of this page or another, it
      // remembers (this.writer.planned), and it takes each record's writes at once.
      const creating = new Set<string>();
      const planned = this.writer.planned;
      let matchedAny = false;
      for (const [i, record] of mapped.entries()) {
        const values = tuples[i];
        const refused = values === undefined ? undefined : index.refused(values);
        if (refused !== undefined) {
          this.fail(record.source, `match search: ${refused.message}`);
          continue;
        }
        const equalities = values === undefined ? {} : Object.fromEntries(plan.equalities.map((e, j) => [e.field, values[j]]));
        const matches = values === undefined ? [] : index.find(values);
        if (matches.length > 0) matchedAny = true;
        const created = values === undefined ? undefined : JSON.stringify(values);
        const earlier =
          matches.length > 0 || values === undefined
            ? undefined
            : planned !== undefined
              ? planned.withValues(values)
              : creating.has(created!)
                ? equalities
                : undefined;
        const pending =
          earlier !== undefined ? this.decideRepeat(record, equalities, earlier) : this.decide(record, matches, matches.length, equalities);
        if (pending === undefined) continue;
        if (values === undefined) this.createdUnmatchable(record);
        if (planned !== undefined) await this.writeAll([pending]);
        else {
          if (matches.length === 0 && created !== undefined) creating.add(created);
          writes.push(pending);
        }
      }
      await this.writeAll(writes);
      if (this.matchOnWrite && mapped.length > 0) this.writeFirst = this.writesLeaveUnchanged || !matchedAny;
    } else if (plan.kind === 'create') {
      await this.writeAll(
        mapped.map((record) => this.decide(record, [], 0, {})).filter((pending): pending is PendingWrite => pending !== undefined),
      );
    } else {
      for (const record of mapped) {
        this.checkSignal();
        await this.applySearched(record, plan.where);
      }
    }
  }

  private createdUnmatchable(record: Mapped): void {
    this.unmatchable.count += 1;
    const id = record.source.sourceId;
    if (id !== undefined && this.unmatchable.sourceIds.length < 5) this.unmatchable.sourceIds.push(id);
  }

  /**
   * Says, once per run, that records without a match value were created: `= null` matches no
   * record, so the next run that reads them creates them again — a target that doubles at every
   * run, which the statistics alone (so many created) do not explain.
   */
  noteUnmatchable(): void {
    const { count, sourceIds } = this.unmatchable;
    if (count === 0 || this.plan.kind !== 'batched') return;
    const fields = this.plan.equalities.map((equality) => equality.field).join(', ');
    const which = sourceIds.length === 0 ? '' : ` (source ${sourceIds.length < count ? 'ids, first' : 'ids'}: ${sourceIds.join(', ')})`;
    this.report.note(
      undefined,
      `${count} record(s) had no value for the match field(s) ${fields}${which}: a null matches no record, so each was created, and every run that reads it again creates it again; leave such records out with the sync's where, or give them a value`,
    );
  }

  /**
   * The page's writes, each matched by its match values and left to the target's own lookup
   * (match-on-write.ts); answers the records the writes refused, not written, for the search.
   */
  private async writeMatching(mapped: readonly Mapped[], equalities: readonly Equality[]): Promise<Mapped[]> {
    const writes: PendingWrite[] = [];
    for (const record of mapped) {
      const values = equalityValues(equalities, record.placeholders);
      const matching: RecordData = {};
      if (values !== undefined) for (const [j, equality] of equalities.entries()) matching[equality.field] = values[j];
      const pending = this.decide(record, [], 0, matching);
      if (pending === undefined) continue;
      if (values === undefined) this.createdUnmatchable(record);
      if (this.writesLeaveUnchanged) pending.requests[0] = { ...pending.requests[0]!, leaveUnchanged: true };
      writes.push(pending);
    }
    const again: Mapped[] = [];
    await this.writeAll(writes, again);
    return again;
  }

  /**
   * Precondition and mapping; undefined when the record was skipped or failed here. Synchronous
   * when the compiled mapping answers (most records), so a page does not wait a turn per record.
   */
  private map(source: SourceRecord): Mapped | undefined | Promise<Mapped | undefined> {
    const { record } = source;
    if (!passesPrecondition(this.sync, record, this.params)) {
      // Not an outcome of the match rules: not told to onRecord (ProcessStart.onRecord).
      this.report.statistics.skipped += 1;
      this.settled({ result: 'skipped', source, reason: { rule: 'precondition' } });
      return undefined;
    }
    // One bindings object for the run: neither JSONata nor the compiled closures change it.
    this.bindings ??= { params: this.params };
    const result = evaluateMappingNow(this.sync.mapping, record, this.bindings);
    return result === NOT_NOW ? this.mapByJsonata(source, this.bindings) : this.mapped(source, result);
  }

  /** The mapping by JSONata's own evaluate: whatever the compiled closures leave to it. */
  private async mapByJsonata(source: SourceRecord, bindings: { params: Params }): Promise<Mapped | undefined> {
    let result: unknown;
    try {
      result = await this.sync.mapping.evaluate(source.record, bindings);
    } catch (error) {
      this.fail(source, `mapping: ${(error as { message?: string }).message ?? String(error)}`);
      return undefined;
    }
    return this.mapped(source, result);
  }

  /** The mapping's result split into target fields and typed groups, or a failure. */
  private mapped(source: SourceRecord, result: unknown): Mapped | undefined {
    const refused = notTargetFields(result);
    if (refused !== undefined) {
      this.fail(source, refused);
      return undefined;
    }
    const values: RecordData = {};
    const groups: Record<string, Record<string, RecordData>> = {};
    let grouped = false;
    for (const name of Object.keys(result as RecordData)) {
      const value = (result as RecordData)[name];
      if (this.groupNames.has(name) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
        groups[name] = value as Record<string, RecordData>;
        grouped = true;
      } else {
        setOwnField(values, name, value);
      }
    }
    // Without groups the mapped record is its values; a copy per record would change nothing.
    const mapped = grouped ? { ...values, ...groups } : values;
    return { source, values, groups, placeholders: recordOrParamPlaceholders(mapped, this.params) };
  }

  /**
   * Record-by-record search: at most 2 found tell one from several, except for updateAll. A plan
   * adds what its earlier records would have created and `where` finds.
   */
  private async applySearched(record: Mapped, where: Expression): Promise<void> {
    const object = this.definition.target.object;
    const all = this.definition.match?.onMultipleMatches === 'updateAll';
    const request = { filter: where, placeholders: record.placeholders, ...(this.signal === undefined ? {} : { signal: this.signal }) };
    const matches: RecordData[] = [];
    let count: number;
    try {
      for await (const page of this.target.read(object, { ...request, ...(all ? {} : { limit: 2, pageSize: 2 }) })) matches.push(...page);
      const planned = this.writer.planned?.matching(where, record.placeholders) ?? [];
      count =
        matches.length > 1 && this.definition.match?.onMultipleMatches === 'fail'
          ? (await this.target.count(object, request)) + planned.length
          : matches.length + planned.length;
      matches.push(...(all ? planned : planned.slice(0, Math.max(0, 2 - matches.length))));
    } catch (error) {
      if (isRecordRejection(error)) {
        // A mapped value the search cannot use (text for an Integer field): this record's problem.
        this.fail(record.source, `match search: ${error.message}`);
        return;
      }
      throw stopFor(error, `searching ${this.targetLabel}`, this.signal);
    }
    const pending = this.decide(record, matches, count, {});
    if (pending !== undefined) await this.writeAll([pending]);
  }

  /**
   * Per the match rules: counts a skip or a failure at once, or answers the writes the record
   * needs (one, or one per target under updateAll).
   */
  private decide(record: Mapped, matches: readonly RecordData[], count: number, equalities: RecordData): PendingWrite | undefined {
    const match = this.definition.match;
    if (matches.length === 0) {
      if (match?.onNoMatch === 'skip') return this.skip(record, { rule: 'onNoMatch' });
      // With a batched match the key values go along, so the connector upserts by them, atomically
      // per key: a record created since the search (another run or sync, a retry after a crash, an
      // earlier record of this page) is a match — updated, or left under onMatch skip — not doubled.
      const create: WriteRequest = { values: record.values, groups: record.groups, match: equalities };
      if (match?.onMatch === 'skip') create.onMatch = 'skip';
      return { record, requests: [create], found: [undefined] };
    }
    let targets: readonly RecordData[];
    if (matches.length === 1) {
      if (match?.onMatch === 'skip') return this.skip(record, { rule: 'onMatch', key: this.keyOf(matches[0]!) });
      targets = matches;
    } else {
      switch (match?.onMultipleMatches) {
        case 'skip':
          return this.skip(record, { rule: 'onMultipleMatches', count });
        case 'updateFirst':
          targets = matches.slice(0, 1);
          break;
        case 'updateAll':
          targets = matches;
          break;
        default:
          this.fail(
            record.source,
            `${count} records of ${this.targetLabel} match ${this.definition.match?.where}; onMultipleMatches is fail, so none was written`,
          );
          return undefined;
      }
    }
    // The found record's own key identifies it: the match fields may not be unique.
    return {
      record,
      requests: targets.map((target): WriteRequest => ({ values: record.values, groups: record.groups, match: this.keyOf(target) })),
      found: targets,
    };
  }

  /** A found target record's own key. */
  private keyOf(target: RecordData): RecordData {
    const key: RecordData = {};
    for (const field of this.description.key) key[field] = target[field];
    return key;
  }

  /**
   * A record whose match values an earlier record creates (of this page; in a plan, of the run):
   * one match, by those values. `earlier` is that record as far as the run knows it.
   */
  private decideRepeat(record: Mapped, equalities: RecordData, earlier: RecordData): PendingWrite | undefined {
    if (this.definition.match?.onMatch === 'skip') return this.skip(record, { rule: 'onMatch', key: equalities });
    return { record, requests: [{ values: record.values, groups: record.groups, match: equalities }], found: [earlier] };
  }

  /**
   * The writes of a page in one call to the writer (for a run, one writeMany: one transaction,
   * batched statements). A rejected record fails alone — or, given `again`, goes there unwritten, to
   * be searched (match-on-write.ts), as does every record of a call refused as a whole for a
   * value in it; anything else stops the run — after every
   * record that was written is counted, since writeMany answers the writes made even when the
   * system failed partway. A record deleted since the search is created again by the connector;
   * the statistics count what happened.
   */
  private async writeAll(writes: readonly PendingWrite[], again?: Mapped[]): Promise<void> {
    if (writes.length === 0) return;
    this.checkSignal();
    let results: Array<RunWriteResult | ConnectorError>;
    try {
      results = await this.writer.write(writes);
    } catch (error) {
      // Refused as a whole for a value in it, nothing written: each record is searched instead.
      if (again !== undefined && isRecordRejection(error)) {
        for (const write of writes) again.push(write.record);
        return;
      }
      throw stopFor(error, `writing ${this.targetLabel}`, this.signal);
    }
    let at = 0;
    let stop: ConnectorError | undefined;
    for (const write of writes) {
      const own = results.slice(at, at + write.requests.length);
      at += write.requests.length;
      const error = own.find((result): result is ConnectorError => result instanceof ConnectorError);
      if (error !== undefined) {
        if (isRecordRejection(error) && again !== undefined) again.push(write.record);
        else if (isRecordRejection(error)) this.fail(write.record.source, error.message);
        else stop ??= error;
        continue;
      }
      const written = own as RunWriteResult[];
      const created = written.filter((result) => result.action === 'created').length;
      const unchanged = written.filter((result) => result.action === 'unchanged').length;
      const skipped = written.filter((result) => result.action === 'skipped').length + unchanged;
      // A record found at write time under onMatch skip, or already holding its values, was left as it is: a skip.
      const result = skipped === own.length ? 'skipped' : created === own.length ? 'created' : 'updated';
      this.report.statistics[result] += 1;
      if (unchanged === own.length) this.report.statistics.unchanged = (this.report.statistics.unchanged ?? 0) + 1;
      this.onRecord?.({ sourceId: write.record.source.sourceId, result, keys: written.map((answer) => answer.key) });
      this.settled({ result: 'written', write, results: written });
    }
    if (stop !== undefined) throw stopFor(stop, `writing ${this.targetLabel}`, this.signal);
  }
}

/**
 * Whether a source record passes the sync's precondition (none: every record does): `#field#` reads
 * the source record, `#params.Name#` the ActionParams. A record that does not pass is skipped.
 */
export function passesPrecondition(sync: SyncEntry, record: RecordData, params: Params): boolean {
  if (sync.precondition === undefined) return true;
  const scope = { field: (path: readonly string[]) => resolvePath(record, path), placeholder: recordOrParamPlaceholders(record, params) };
  return evaluateCondition(sync.precondition, scope);
}

/** Why a mapping's result cannot be written (the record fails), or undefined for an object of target fields. */
export function notTargetFields(result: unknown): string | undefined {
  if (result !== null && typeof result === 'object' && !Array.isArray(result)) return undefined;
  return `mapping: produced ${result === undefined ? 'nothing' : Array.isArray(result) ? 'an array' : JSON.stringify(result)}, not an object of target fields`;
}

/**
 * What a sync run needs of the process around it: a run's environment, where the runtime database
 * is needed only to read a record store (a dry run of another source opens none).
 */
export type SyncEnvironment = Omit<RunEnvironment, 'db'> & { db?: RunEnvironment['db'] };

/** How a run carries out the writes it decides: makes them, or plans them (a dry run). */
export interface Writing {
  writer(run: { target: Connection; object: string; description: ObjectDescription; plan: MatchPlan }): RunWriter;
  /** Whether the run may settle its source (archive the files of a drop folder it read whole). */
  settles: boolean;
}

/** A run's writing: every page's writes made by the target connector, the source settled. */
export const MAKE_WRITES: Writing = { writer: ({ target, object }) => targetWriter(target, object), settles: true };

/** The WhereClause of a start as a filter; a bad one stops the run for good. */
function whereClauseFilter(environment: SyncEnvironment, sync: SyncEntry, text: string | null | undefined): Expression | undefined {
  if (text === null || text === undefined || text.trim() === '') return undefined;
  try {
    return parseWhereClause(environment.snapshot, sync.definition.id, text);
  } catch (error) {
    if (error instanceof WhereClauseError) throw new RunStop(error.message, false, { cause: error });
    throw error;
  }
}

async function connect(environment: SyncEnvironment, systemId: string, role: string, signal: AbortSignal | undefined): Promise<Connection> {
  const system = environment.snapshot.systems.get(systemId);
  if (system === undefined) throw new RunStop(`${role} system '${systemId}' is not defined`, false);
  try {
    return await environment.connections.get(system.definition);
  } catch (error) {
    throw stopFor(error, `connecting to ${role} system '${systemId}'`, signal);
  }
}

/** Runs `sync` for `start` to its outcome; never throws for a failed run. */
export async function runSync(
  environment: SyncEnvironment,
  start: ProcessStart,
  sync: SyncEntry,
  writing: Writing = MAKE_WRITES,
): Promise<SyncOutcome> {
  const definition = sync.definition;
  const signal = start.signal;
  const params = paramsObject(start.actionParams);
  const sourceId = start.sourceId === null || start.sourceId === undefined || start.sourceId === '' ? undefined : start.sourceId;
  const given = start.records;
  const sourceLabel =
    given !== undefined
      ? 'the given records'
      : definition.source.recordStore
        ? `the record store of ${definition.id}`
        : `${definition.source.system}/${definition.source.object ?? definition.source.query}`;
  let run: SyncRun | undefined;
  let cursor: CursorRun | undefined;
  const early = new RunReport(definition.maxErrors);
  try {
    const where = andFilters(sync.where, whereClauseFilter(environment, sync, start.whereClause));
    cursor = await CursorRun.open(environment, sync, start, writing.settles);
    const filter = andFilters(where, cursor?.filter);
    const target = await connect(environment, definition.target.system, 'target', signal);
    let description: ObjectDescription;
    try {
      description = target.describe(definition.target.object);
    } catch (error) {
      throw stopFor(error, `target ${definition.target.system}/${definition.target.object}`, signal);
    }
    const source =
      definition.source.recordStore || given !== undefined
        ? undefined
        : await connect(environment, definition.source.system!, 'source', signal);
    const plan = matchPlan(sync.matchWhere, description);
    let made = writing.writer({ target, object: definition.target.object, description, plan });
    // A matched record that already holds the mapped values is left as it is: no write. Records a
    // webhook's saveWithSync hands over are written as given, so its caller hears created or updated.
    const leaveUnchanged = writing.settles && given === undefined;
    if (leaveUnchanged) made = skipUnchanged(made, description);
    const writer = cursor?.watch(made) ?? made;
    run = new SyncRun(sync, params, target, description, plan, signal, writer, leaveUnchanged);
    run.onRecord = start.onRecord;
    const receipt = writing.settles ? settleReceipt(source, sync, start) : undefined;
    const read = sourcePages({
      snapshot: environment.snapshot,
      sync,
      connection: source,
      db: environment.db,
      filter,
      placeholders: cursor?.placeholders(paramPlaceholders(params)) ?? paramPlaceholders(params),
      sourceId,
      signal,
      ...(given === undefined ? {} : { records: given }),
      ...(cursor?.rangeField === undefined ? {} : { rangeField: cursor.rangeField }),
      ...(receipt === undefined ? {} : { receipt }),
    });
    const pages = prefetchPages(cursor?.pages(read) ?? read);
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
      run.report.note(
        sourceId,
        `source record '${sourceId}' was not found in ${sourceLabel}${filter === undefined ? '' : " under the sync's where and the WhereClause"}; nothing was synced`,
      );
    }
    // Every record read was used: what the source keeps of the read (a drop folder's files) may go.
    if (receipt !== undefined && run.report.statistics.failed === 0) await settleSource(environment, sync, source!, receipt, run.report);
    run.noteUnmatchable();
    await cursor?.finish(environment, run.report);
    start.onProgress?.({ ...run.report.statistics });
    return { ...run.report.complete(), recordStore: { read: run.guidsRead, failed: run.guidsFailed } };
  } catch (error) {
    const stop = stopFor(error, `sync '${definition.id}'`, signal);
    // An expected stop (a system away, a bad WhereClause) is said in one line; only a surprise keeps its stack.
    const expected = error instanceof RunStop || error instanceof ConnectorError;
    environment.log?.warn(
      { sync: definition.id, retryable: stop.retryable, ...(expected ? {} : { err: error }) },
      `sync ${definition.id} failed: ${stop.message}`,
    );
    const report = run?.report ?? early;
    if (cursor !== undefined) report.statistics.cursor = cursor.statistics();
    return { ...report.failed(stop), recordStore: { read: run?.guidsRead ?? [], failed: run?.guidsFailed ?? [] } };
  }
}
