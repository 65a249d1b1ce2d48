/**
 * Incremental runs of a sync with a `source.cursor` (DESIGN §7): each successful run keeps the
 * high-water mark of the cursor field per sync in the runtime database (cursor-marks.ts); the next
 * run reads only records from the mark on, less the look-back (cursor-values.ts). The condition is
 * data like every filter — `field >= #cursor#` with the bound value — AND-ed with the sync's
 * `where` and the start's WhereClause, and pushed down to the connector. The read names the
 * cursor as its range (ReadRequest.rangeField): the sql connector then reads by the cursor, then
 * the key, so an index on the cursor finds the records past the mark (seek-order.ts there).
 *
 * What reads everything: the first run (no mark yet, or one of another field or of another source:
 * another system, object, query or `where`, cursor-marks.ts), and a start with
 * the action parameter FULL_RUN=true (`syncline run --full`). A full run starts the mark over.
 *
 * The mark a run stores is the greatest cursor value it read, but never past a record that failed:
 * below the smallest failed value, so the next run reads that record again. Nothing is stored
 * - after a Failed run (its statistics still show what it read),
 * - by a dry run, or a start that read part of the range: one with a WhereClause (the records
 *   it left out are not synced), one whose ActionParams the sync's `where` or precondition uses
 *   (narrowedByParams), an ad-hoc start of one source record, given records (both read without
 *   the cursor).
 * Records without a cursor value (null) are read by full runs only.
 *
 * The run's statistics carry the range read (CursorStatistics): GetAction and `syncline run`
 * show it.
 */
import type { PlaceholderValues } from '../../connectors/connection.js';
import type { Expression } from '../../definitions/expression/index.js';
import { collectPlaceholders } from '../../definitions/expression/walk.js';
import type { SyncCursor, SyncEntry } from '../../definitions/snapshot.js';
import type { ProcessStart } from '../execution/process-run.js';
import type { ActionParam, CursorStatistics } from '../queue/queue-item.js';
import { readMark, sourceDigest, storeMark } from './cursor-marks.js';
import { compareCursorValues, markBelowFailure, markText, readBound } from './cursor-values.js';
import type { RunReport } from './run-report.js';
import type { SyncEnvironment } from './run-sync.js';
import { type RunWriter, wrapWriter } from './run-writer.js';
import type { SourceRecord } from './source-pages.js';

/** The action parameter that makes a start of a sync with a cursor read everything (value `true`). */
export const FULL_RUN_PARAM = 'FULL_RUN';

/** Whether the start's ActionParams ask for a full run: FULL_RUN with the value true (any case). */
export function asksFullRun(actionParams: readonly ActionParam[] | null | undefined): boolean {
  const last = (actionParams ?? []).filter((param) => param.Name === FULL_RUN_PARAM).at(-1);
  return last !== undefined && last.Value.trim().toLowerCase() === 'true';
}

/**
 * Whether the start's ActionParams narrow what the run reads: the sync's `where` or precondition
 * names a parameter the start gives (`#params.id# IS NULL OR id = #params.id#`, the pattern of a
 * webhook that starts its sync for one record). Such a run reads part of the range, as one with a
 * WhereClause does: its mark would pass records it left out, never to be read again.
 */
export function narrowedByParams(sync: SyncEntry, actionParams: readonly ActionParam[] | null | undefined): boolean {
  const given = new Set((actionParams ?? []).map((param) => param.Name).filter((name) => name !== FULL_RUN_PARAM));
  if (given.size === 0) return false;
  return [sync.where, sync.precondition].some(
    (expression) =>
      expression !== undefined &&
      collectPlaceholders(expression).some((reference) => reference.path[0] === 'params' && given.has(reference.path[1] ?? '')),
  );
}

/** The placeholder the cursor's bound value goes by; no definition can name it. */
const BOUND = ['\u0000cursor'];
const at = { start: 0, end: 0 };

export class CursorRun {
  /** Greatest cursor value read so far, as mark text. */
  private highest: string | undefined;
  /** Smallest cursor value of a failed record. */
  private lowestFailed: string | undefined;
  private readonly bound: { op: '>' | '>='; value: string | number } | undefined;
  private stored: string | undefined;

  private constructor(
    private readonly syncId: string,
    private readonly cursor: SyncCursor,
    /** sourceDigest of the sync: a mark is of one source. */
    private readonly source: string,
    private readonly previous: string | undefined,
    private readonly full: boolean,
    /** Whether a successful run stores its mark. */
    private readonly keeps: boolean,
  ) {
    this.bound = previous === undefined ? undefined : readBound(cursor, previous);
    this.stored = previous;
  }

  /**
   * The cursor of a run of `sync` for `start`, with the mark read; undefined when the sync has no
   * cursor or the start does not read its source as a range (an ad-hoc start, given records).
   * `keeps`: whether the run's writes are made (not a dry run).
   */
  static async open(environment: SyncEnvironment, sync: SyncEntry, start: ProcessStart, keeps: boolean): Promise<CursorRun | undefined> {
    const cursor = sync.cursor;
    const sourceId = start.sourceId ?? '';
    if (cursor === undefined || start.records !== undefined || sourceId !== '') return undefined;
    const full = asksFullRun(start.actionParams);
    const db = environment.db;
    const source = sourceDigest(sync.definition);
    const previous = full || db === undefined ? undefined : await readMark(db, sync.definition.id, cursor, source);
    const narrowed = (start.whereClause ?? '').trim() !== '' || narrowedByParams(sync, start.actionParams);
    return new CursorRun(sync.definition.id, cursor, source, previous, full, keeps && db !== undefined && !narrowed);
  }

  /** `field >= #cursor#` (or `>` for an Integer key); undefined for a run that reads everything. */
  get filter(): Expression | undefined {
    if (this.bound === undefined) return undefined;
    return {
      type: 'compare',
      op: this.bound.op,
      left: { type: 'field', path: this.cursor.field.split('.'), ...at },
      right: { type: 'placeholder', path: BOUND, ...at },
      ...at,
    };
  }

  /**
   * The cursor field, told to the source's connector as the read's range (ReadRequest.rangeField):
   * read by key, a database walks every record to find the few past the mark; read by the cursor,
   * an index on it finds them. Undefined for a run that reads everything.
   */
  get rangeField(): string | undefined {
    return this.bound === undefined ? undefined : this.cursor.field;
  }

  /** `outer` with the cursor's bound value added. */
  placeholders(outer: PlaceholderValues): PlaceholderValues {
    const value = this.bound?.value;
    return (path) => (path.length === 1 && path[0] === BOUND[0] ? value : outer(path));
  }

  /** The source's pages as they come, noting the greatest cursor value read. */
  async *pages(pages: AsyncIterable<SourceRecord[]>): AsyncGenerator<SourceRecord[]> {
    const { field, type } = this.cursor;
    for await (const page of pages) {
      for (const source of page) {
        const value = markText(type, source.record[field]);
        if (value !== undefined && (this.highest === undefined || compareCursorValues(type, value, this.highest) > 0)) this.highest = value;
      }
      yield page;
    }
  }

  /** `writer`, also told of each failed record, whose cursor value the mark must not pass. */
  watch(writer: RunWriter): RunWriter {
    const { field, type } = this.cursor;
    return wrapWriter(writer, {
      write: (writes) => writer.write(writes),
      settled: (fate) => {
        if (fate.result === 'failed') {
          const value = markText(type, fate.source.record[field]);
          if (value !== undefined && (this.lowestFailed === undefined || compareCursorValues(type, value, this.lowestFailed) < 0))
            this.lowestFailed = value;
        }
        writer.settled?.(fate);
      },
    });
  }

  /** The range read so far, and the mark as it stands. */
  statistics(): CursorStatistics {
    return { field: this.cursor.field, from: this.bound?.value ?? null, to: this.highest ?? null, mark: this.stored ?? null };
  }

  /**
   * After a Complete run: stores the new mark (when the run keeps one) and puts the range into the
   * report's statistics. A mark that cannot be stored is said on the item; the records were synced,
   * and the next run reads from the previous mark again, finding them unchanged.
   */
  async finish(environment: SyncEnvironment, report: RunReport): Promise<void> {
    const next = this.nextMark();
    if (this.keeps && next !== undefined && next !== this.previous) {
      try {
        this.stored = await storeMark(environment.db!, this.syncId, this.cursor, next, { full: this.full, source: this.source });
      } catch (error) {
        const message = `the high-water mark ${next} of ${this.cursor.field} could not be stored (${(error as Error).message}); the next run reads from the previous mark again`;
        environment.log?.warn({ sync: this.syncId, err: error }, message);
        report.note(undefined, message);
      }
    }
    report.statistics.cursor = this.statistics();
  }

  /** The greatest value read, held below the smallest failed one; undefined when nothing was read. */
  private nextMark(): string | undefined {
    const { type } = this.cursor;
    if (this.lowestFailed === undefined) return this.highest;
    const cap = markBelowFailure(type, this.lowestFailed);
    return this.highest === undefined || compareCursorValues(type, this.highest, cap) > 0 ? cap : this.highest;
  }
}
