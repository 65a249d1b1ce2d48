/**
 * The batched match search of one page: one read of the target per chunk of key values
 * (`Field IN (#0#, #1#, …)`, or `(A = #0# AND B = #1#) OR …` for several fields), every value
 * bound, then target records indexed by their key values so each mapped record finds its own in
 * memory. Records created while the page is written join the index, so two source records of one
 * page with the same key create one target record and update it, as a record-by-record search
 * would.
 *
 * A read the target refuses for a value in it (PostgreSQL cannot take NUL, U+0000, in text; a
 * value that does not fit its field) is split in halves and read again, down to single tuples:
 * only the tuples refused on their own are left out, each with its error, and the records that
 * carry them fail alone — as they would searched one by one — while the rest of the page goes on.
 * One bad value among 500 costs about 2·log2(500) ≈ 18 more reads, not 500.
 */
import type { Connection, RecordData } from '../../connectors/connection.js';
import type { AndNode, CompareNode, Expression, FieldNode, InNode, OrNode, PlaceholderNode } from '../../definitions/expression/index.js';
import { tupleKey, type Equality } from './match-plan.js';

/** Bound values per read: far below every engine's limit, and a statement the planner handles well. */
const VALUES_PER_READ = 500;

const at = { start: 0, end: 0 };

function chunkFilter(equalities: readonly Equality[], count: number): Expression {
  const width = equalities.length;
  const field = (equality: Equality): FieldNode => ({ type: 'field', path: [equality.field], ...at });
  const placeholder = (index: number): PlaceholderNode => ({ type: 'placeholder', path: [String(index)], ...at });
  if (width === 1) {
    const node: InNode = {
      type: 'in',
      negated: false,
      value: field(equalities[0]!),
      list: Array.from({ length: count }, (_, i) => placeholder(i)),
      ...at,
    };
    return node;
  }
  const tuples = Array.from(
    { length: count },
    (_, t): AndNode => ({
      type: 'and',
      operands: equalities.map(
        (equality, e): CompareNode => ({ type: 'compare', op: '=', left: field(equality), right: placeholder(t * width + e), ...at }),
      ),
      ...at,
    }),
  );
  if (tuples.length === 1) return tuples[0]!;
  const node: OrNode = { type: 'or', operands: tuples, ...at };
  return node;
}

/** Whether the target refused a read for the values in it, so a smaller read may go through. */
export type RefusedForValues = (error: unknown) => boolean;

export class MatchIndex {
  private readonly byKey = new Map<string, RecordData[]>();
  /** Tuples the target refused to search for, alone: their error, by tuple key. */
  private readonly refusedByKey = new Map<string, Error>();

  constructor(private readonly equalities: readonly Equality[]) {}

  add(record: RecordData): void {
    const key = tupleKey(
      this.equalities,
      this.equalities.map((equality) => record[equality.field]),
    );
    const list = this.byKey.get(key);
    if (list === undefined) this.byKey.set(key, [record]);
    else list.push(record);
  }

  /**
   * Target records with exactly these key values. A target whose collation also equates other
   * spellings (MariaDB's default ignores case and trailing blanks) is not second-guessed here: a
   * record without an exact match is written with its match values, and the connector's own
   * lookup, which compares as the database does, finds that record and updates it. Pairing
   * loosely here would let one source record take another's target row on engines that tell
   * 'ABC' from 'abc'.
   */
  find(values: readonly unknown[]): RecordData[] {
    return this.byKey.get(tupleKey(this.equalities, values)) ?? [];
  }

  /** The error the target gave for a search of exactly these key values, if it refused it. */
  refused(values: readonly unknown[]): Error | undefined {
    return this.refusedByKey.get(tupleKey(this.equalities, values));
  }

  /**
   * Reads the target records of all these key tuples into a new index. An error `refusedForValues`
   * accepts narrows the read (see the top of the file); any other error is thrown.
   */
  static async load(
    connection: Connection,
    object: string,
    equalities: readonly Equality[],
    tuples: ReadonlyArray<readonly unknown[]>,
    signal: AbortSignal | undefined,
    refusedForValues: RefusedForValues = () => false,
  ): Promise<MatchIndex> {
    const index = new MatchIndex(equalities);
    const unique = [...new Map(tuples.map((values) => [tupleKey(equalities, values), values])).values()];
    const perRead = Math.max(1, Math.floor(VALUES_PER_READ / equalities.length));
    const read = async (chunk: ReadonlyArray<readonly unknown[]>): Promise<void> => {
      let records: RecordData[];
      try {
        records = await readChunk(connection, object, equalities, chunk, signal);
      } catch (error) {
        if (!refusedForValues(error)) throw error;
        if (chunk.length === 1) {
          index.refusedByKey.set(tupleKey(equalities, chunk[0]!), error instanceof Error ? error : new Error(String(error)));
          return;
        }
        const half = Math.ceil(chunk.length / 2);
        await read(chunk.slice(0, half));
        await read(chunk.slice(half));
        return;
      }
      for (const record of records) index.add(record);
    };
    for (let start = 0; start < unique.length; start += perRead) await read(unique.slice(start, start + perRead));
    return index;
  }
}

/**
 * The target records of one chunk of tuples, all pages of them: nothing joins the index until the
 * whole read went through, so a chunk read again in halves adds no record twice.
 */
async function readChunk(
  connection: Connection,
  object: string,
  equalities: readonly Equality[],
  chunk: ReadonlyArray<readonly unknown[]>,
  signal: AbortSignal | undefined,
): Promise<RecordData[]> {
  const bound = chunk.flat();
  const pages = connection.read(object, {
    filter: chunkFilter(equalities, chunk.length),
    placeholders: (path) => bound[Number(path[0])],
    // One more than the tuples: where the match fields are unique (the usual key match) every
    // record found fits in the first page, and a page short of full ends the read — one statement.
    pageSize: Math.max(chunk.length + 1, 100),
    ...(signal === undefined ? {} : { signal }),
  });
  const records: RecordData[] = [];
  for await (const page of pages) records.push(...page);
  return records;
}
