/**
 * What a sync run does with the writes it decided (run-sync.ts). A run makes them: one
 * Connection.writeMany per page (`targetWriter`). A dry run plans them instead (plan-writer.ts):
 * it checks each write as the connector would and works out what it would change, writing
 * nothing. Either way the run counts each source record's result the same way from the answers,
 * so a plan's statistics are what the run would count.
 */
import type { Connection, PlaceholderValues, RecordData, WriteRequest, WriteResult } from '../../connectors/connection.js';
import type { ConnectorError } from '../../connectors/connector-error.js';
import type { Expression } from '../../definitions/expression/index.js';
import type { SourceRecord } from './source-pages.js';

export type Groups = NonNullable<WriteRequest['groups']>;

/** A source record past its precondition and mapping, ready to be matched and written. */
export interface Mapped {
  source: SourceRecord;
  values: RecordData;
  groups: Groups;
  /** `#Field#` of the match search: the mapped record; `#params.Name#`: the ActionParams. */
  placeholders: PlaceholderValues;
}

/** The writes one source record needs (one, or one per target under updateAll). */
export interface PendingWrite {
  record: Mapped;
  requests: WriteRequest[];
  /**
   * Per request, the target record it updates as the search found it (or, in a dry run, as an
   * earlier record of the run would create it); undefined where the request creates one.
   */
  found: ReadonlyArray<RecordData | undefined>;
}

/** Why a record was skipped: the rule of the sync that left it out. */
export type SkipReason =
  | { rule: 'precondition' }
  /** No target record matches, and onNoMatch is skip. */
  | { rule: 'onNoMatch' }
  /** One matches (`key`: its key, when known), and onMatch is skip. */
  | { rule: 'onMatch'; key?: RecordData }
  | { rule: 'onMultipleMatches'; count: number };

/** A write left out because the target record already holds its values (unchanged-writes.ts). */
export interface LeftAsIs {
  action: 'unchanged';
  /** The target record's key. */
  key: RecordData;
}

/** What became of one request of a write: what the connector answered, or left out as unchanged. */
export type RunWriteResult = WriteResult | LeftAsIs;

/** What became of one source record; every record read has exactly one. */
export type RecordFate =
  | { result: 'skipped'; source: SourceRecord; reason: SkipReason }
  | { result: 'failed'; source: SourceRecord; message: string }
  /** Its writes went through: created, updated, found at write time and left (onMatch skip), or left out as unchanged. */
  | { result: 'written'; write: PendingWrite; results: readonly RunWriteResult[] };

/** Records a dry run would have created so far, for later records to find as a run finds what it wrote. */
export interface EarlierCreates {
  /** The record a create with these batched match values would have made (match-plan.ts `equalityValues`). */
  withValues(values: readonly unknown[]): RecordData | undefined;
  /** Those `where` (a match.where searched record by record) would find. */
  matching(where: Expression, placeholders: PlaceholderValues): RecordData[];
}

export interface RunWriter {
  /**
   * The writes, made or planned, in order: per request of each write, flattened, a WriteResult or
   * the ConnectorError refusing it (Connection.writeMany's answer), or `unchanged` for one left
   * out. Rejects when the system failed as a whole.
   */
  write(writes: readonly PendingWrite[]): Promise<Array<RunWriteResult | ConnectorError>>;
  /** Told each source record's fate as the run settles it. */
  settled?(fate: RecordFate): void;
  /**
   * Present when the writes are only planned: what they would have created. The run then hands
   * each record's writes over as soon as they are decided, not a page at a time, so that a later
   * record of the same page finds what an earlier one creates.
   */
  readonly planned?: EarlierCreates;
  /**
   * True when the writes look their matches up themselves, in batches, where they are made
   * (Connection.findsMatchesInBatch): the run may then leave a page's match search to them
   * (match-on-write.ts).
   */
  readonly findsMatches?: boolean;
}

/**
 * A writer around `inner` that changes how its writes are made or what it is told: what `inner` is
 * (planned, findsMatches) carries through, and `settled` reaches it unless the wrapper takes it
 * over, so no wrapper can drop a property the run decides by.
 */
export function wrapWriter(inner: RunWriter, wrapper: Pick<RunWriter, 'write' | 'settled'>): RunWriter {
  const settled = wrapper.settled ?? inner.settled?.bind(inner);
  return {
    write: wrapper.write,
    ...(settled === undefined ? {} : { settled }),
    ...(inner.planned === undefined ? {} : { planned: inner.planned }),
    ...(inner.findsMatches === undefined ? {} : { findsMatches: inner.findsMatches }),
  };
}

/** The writer of a run: every page's writes in one call to the target connector. */
export function targetWriter(target: Connection, object: string): RunWriter {
  return {
    findsMatches: target.findsMatchesInBatch === true,
    write: (writes) =>
      target.writeMany(
        object,
        writes.flatMap((write) => write.requests),
      ),
  };
}
