/**
 * The batched match search of one page: one read of the target per chunk of key values
 * (`Field IN (#0#, #1#, …)`, or `(A = #0# AND B = #1#) OR …` for several fields), every value
 * bound, then target records indexed by their key values so each mapped record finds its own in
 * memory. Records created while the page is written join the index, so two source records of one
 * page with the same key create one target record and update it, as a record-by-record search
 * would.
 */
import type { Connection, RecordData } from '../../connectors/connection.js';
import type { AndNode, CompareNode, Expression, FieldNode, InNode, OrNode, PlaceholderNode } from '../expression/index.js';
import { tupleKey, type Equality } from './match-plan.js';

/** Bound values per read: far below every engine's limit, and a statement the planner handles well. */
const VALUES_PER_READ = 500;

const at = { start: 0, end: 0 };

function chunkFilter(equalities: readonly Equality[], count: number): Expression {
  const width = equalities.length;
  const field = (equality: Equality): FieldNode => ({ type: 'field', path: [equality.field], ...at });
  const placeholder = (index: number): PlaceholderNode => ({ type: 'placeholder', path: [String(index)], ...at });
  if (width === 1) {
    const node: InNode = { type: 'in', negated: false, value: field(equalities[0]!), list: Array.from({ length: count }, (_, i) => placeholder(i)), ...at };
    return node;
  }
  const tuples = Array.from({ length: count }, (_, t): AndNode => ({
    type: 'and',
    operands: equalities.map((equality, e): CompareNode => ({ type: 'compare', op: '=', left: field(equality), right: placeholder(t * width + e), ...at })),
    ...at,
  }));
  if (tuples.length === 1) return tuples[0]!;
  const node: OrNode = { type: 'or', operands: tuples, ...at };
  return node;
}

export class MatchIndex {
  private readonly byKey = new Map<string, RecordData[]>();

  constructor(private readonly equalities: readonly Equality[]) {}

  add(record: RecordData): void {
    const key = tupleKey(this.equalities, this.equalities.map((equality) => record[equality.field]));
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

  /** Reads the target records of all these key tuples into a new index. */
  static async load(connection: Connection, object: string, equalities: readonly Equality[], tuples: ReadonlyArray<readonly unknown[]>, signal: AbortSignal | undefined): Promise<MatchIndex> {
    const index = new MatchIndex(equalities);
    const unique = [...new Map(tuples.map((values) => [tupleKey(equalities, values), values])).values()];
    const perRead = Math.max(1, Math.floor(VALUES_PER_READ / equalities.length));
    for (let start = 0; start < unique.length; start += perRead) {
      const chunk = unique.slice(start, start + perRead);
      const bound = chunk.flat();
      const pages = connection.read(object, {
        filter: chunkFilter(equalities, chunk.length),
        placeholders: (path) => bound[Number(path[0])],
        pageSize: Math.max(chunk.length, 100),
        ...(signal === undefined ? {} : { signal }),
      });
      for await (const page of pages) for (const record of page) index.add(record);
    }
    return index;
  }
}
