/**
 * The plan of a dry run as one JSON document, for machines (`--format json`): what is planned,
 * every source record's plan in `records`, the counts per action, the run's status and
 * statistics, and what the plan cannot know.
 *
 * One document rather than NDJSON, so that any JSON reader takes it whole (`jq .records[]`,
 * `JSON.parse`), yet written as the run goes: the head first, then each page's records in read
 * order, one a line, as the page ends (`flush`), the counts and statistics last. No more than a page
 * is held back, so a plan of millions of records needs no more memory than one of ten (standard
 * output to a file or pipe is written synchronously on POSIX systems, so a slow reader slows the
 * run rather than filling memory).
 */
import type { RunOutcome } from '../execution/process-run.js';
import type { PlannedAction, PlannedRecord } from '../sync/planned-record.js';
import type { PlanSubject } from './plan-text.js';

/** JSON of data that may hold a bigint (a Json field's content): as its decimal text. */
function json(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner));
}

export class PlanJson {
  readonly counts: Record<PlannedAction, number> = { create: 0, update: 0, unchanged: 0, skip: 0, fail: 0 };
  private first = true;
  /** The records of the page under way, until it ends. */
  private page: PlannedRecord[] = [];

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly subject: PlanSubject,
  ) {}

  /** The head of the document, up to the opening of `records`. */
  start(): void {
    const { sync, whereClause, actionParams } = this.subject;
    const head = {
      dryRun: true,
      sync: sync.id,
      ...(sync.name === undefined ? {} : { name: sync.name }),
      source: sync.source,
      target: sync.target,
      ...(sync.match === undefined ? {} : { match: sync.match }),
      ...(whereClause === undefined ? {} : { whereClause }),
      params: Object.fromEntries(actionParams.map((param) => [param.Name, param.Value])),
    };
    this.out.write(`${json(head).slice(0, -1)},"records":[`);
  }

  add(record: PlannedRecord): void {
    this.counts[record.action] += 1;
    this.page.push(record);
  }

  /** Writes the records held back, in read order: at the end of each page. */
  flush(): void {
    if (this.page.length === 0) return;
    const lines = this.page.sort((a, b) => a.position - b.position).map((record) => json(record));
    this.out.write(`${this.first ? '\n' : ',\n'}${lines.join(',\n')}`);
    this.first = false;
    this.page = [];
  }

  /** Closes `records` and the document with the counts, the outcome and what was not checked. */
  end(outcome: RunOutcome): void {
    this.flush();
    const tail = {
      counts: this.counts,
      status: outcome.status,
      ...(outcome.status === 'Failed' ? { stoppedBy: outcome.errors[0]?.message } : {}),
      statistics: outcome.statistics,
      written: false,
      notChecked: `unique keys, foreign keys and other constraints only ${this.subject.sync.target.system} knows`,
    };
    this.out.write(`\n],${json(tail).slice(1)}\n`);
  }
}
