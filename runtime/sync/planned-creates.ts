/**
 * The records a dry run would have created so far (plan-writer.ts), found again by later records
 * as a run finds what it wrote:
 *
 * - A batched match (match-plan.ts) finds them by their match values, compared as MatchIndex
 *   compares stored records (`tupleKey`): one map lookup.
 * - A match searched record by record finds them by match.where, evaluated in memory by the same
 *   rules as the JS evaluator everywhere (definitions/expression). Evaluating it on every planned
 *   record for every record searched would grow with the square of the creates, so one equality of
 *   match.where (a term of its top-level AND) whose one side reads only the target's fields and the
 *   other only placeholders — `tolower(Email) = tolower(#Email#)` — indexes them: a record is kept
 *   under each key its side's value may compare equal as (`equalityKeys`), and only the records
 *   under the search's keys are evaluated. A where without such a term is evaluated on each.
 */
import type { PlaceholderValues, RecordData } from '../../connectors/connection.js';
import {
  booleanFrom,
  collectFields,
  collectPlaceholders,
  evaluateCondition,
  evaluateValue,
  numberFromText,
  resolvePath,
  type Expression,
  type ValueExpression,
} from '../../definitions/expression/index.js';
import { toEpochMillis } from '../../definitions/expression/iso-dates.js';
import { tupleKey, type MatchPlan } from './match-plan.js';
import type { EarlierCreates } from './run-writer.js';

/**
 * Keys that two values share whenever the evaluator's `compareValues` finds them equal: numbers and
 * the text of a number, booleans with 1/0 and their texts, instants with ISO text, text with the
 * same text. Values without an equal (null, objects) have none. Values sharing a key may still
 * differ; the key only narrows the records evaluated.
 */
export function equalityKeys(raw: unknown): string[] {
  const value = typeof raw === 'bigint' ? Number(raw) : raw;
  if (value === null || value === undefined) return [];
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? [] : [`d${value.getTime()}`];
  if (typeof value === 'boolean') return [`n${Number(value)}`];
  if (typeof value === 'number') return Number.isNaN(value) ? [] : [`n${value}`];
  if (typeof value !== 'string') return [];
  const keys = [`s${value}`];
  const number = numberFromText(value);
  if (number !== null) keys.push(`n${number}`);
  const flag = booleanFrom(value);
  if (flag !== null && number === null) keys.push(`n${Number(flag)}`);
  const instant = toEpochMillis(value);
  if (instant !== null) keys.push(`d${instant}`);
  return keys;
}

/** The sides of an equality of `where`'s top-level AND that reads the target on one side and placeholders on the other. */
function indexTerm(where: Expression): { target: ValueExpression; search: ValueExpression } | undefined {
  const reads = (side: ValueExpression): 'target' | 'search' | undefined => {
    const fields = collectFields(side).length > 0;
    const placeholders = collectPlaceholders(side).length > 0;
    return fields && !placeholders ? 'target' : placeholders && !fields ? 'search' : undefined;
  };
  for (const term of where.type === 'and' ? where.operands : [where]) {
    if (term.type !== 'compare' || term.op !== '=') continue;
    const [left, right] = [reads(term.left), reads(term.right)];
    if (left === 'target' && right === 'search') return { target: term.left, search: term.right };
    if (left === 'search' && right === 'target') return { target: term.right, search: term.left };
  }
  return undefined;
}

const NO_PLACEHOLDERS = (): unknown => null;

export class PlannedCreates implements EarlierCreates {
  private readonly byValues = new Map<string, RecordData>();
  /** Every planned record, for a search without an index term. */
  private readonly all: RecordData[] = [];
  private readonly byKey = new Map<string, RecordData[]>();
  private readonly term: ReturnType<typeof indexTerm>;
  /** Each record's place among the planned ones, so that candidates come in the order they were planned. */
  private readonly order = new WeakMap<RecordData, number>();

  constructor(private readonly plan: MatchPlan) {
    this.term = plan.kind === 'search' ? indexTerm(plan.where) : undefined;
  }

  /** Keeps a planned record; `match` is its create's match (the batched match values). */
  add(record: RecordData, match: Readonly<RecordData>): void {
    const { plan } = this;
    if (plan.kind === 'batched') {
      this.byValues.set(
        tupleKey(
          plan.equalities,
          plan.equalities.map((equality) => match[equality.field]),
        ),
        record,
      );
      return;
    }
    if (plan.kind !== 'search') return;
    this.order.set(record, this.all.length);
    this.all.push(record);
    if (this.term === undefined) return;
    const value = evaluateValue(this.term.target, { field: (path) => resolvePath(record, path), placeholder: NO_PLACEHOLDERS });
    for (const key of new Set(equalityKeys(value))) {
      const list = this.byKey.get(key);
      if (list === undefined) this.byKey.set(key, [record]);
      else list.push(record);
    }
  }

  withValues(values: readonly unknown[]): RecordData | undefined {
    return this.plan.kind === 'batched' ? this.byValues.get(tupleKey(this.plan.equalities, values)) : undefined;
  }

  matching(where: Expression, placeholders: PlaceholderValues): RecordData[] {
    let candidates = this.all;
    if (this.term !== undefined) {
      const value = evaluateValue(this.term.search, { field: () => null, placeholder: placeholders });
      const found = new Set(equalityKeys(value).flatMap((key) => this.byKey.get(key) ?? []));
      candidates = [...found].sort((a, b) => this.order.get(a)! - this.order.get(b)!);
    }
    return candidates.filter((record) =>
      evaluateCondition(where, { field: (path) => resolvePath(record, path), placeholder: placeholders }),
    );
  }
}
