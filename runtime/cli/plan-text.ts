/**
 * The plan of a dry run as text, for a reviewer: a header (the sync, source → target, the filters
 * and parameters), one line of counts, then a section per action — Create with each new record's
 * values, Update with each changed field `old → new`, Unchanged counted (listed with --verbose),
 * Skip and Fail with the reason — then the statistics table as a run prints it and what the plan
 * cannot know.
 *
 * A section lists its first 50 records in source order, then says how many more there are: a plan
 * of a large sync stays readable, and `--format json` (or --verbose) lists every record. Values are
 * shown as JSON (text quoted, so blanks and control characters show), cut at 60 characters with
 * their full length said. Only the records listed are kept, so memory does not grow with the run.
 */
import type { SyncDefinition } from '../../definitions/types.js';
import type { RunOutcome } from '../execution/process-run.js';
import type { ActionParam } from '../queue/queue-item.js';
import { keyText, type PlannedAction, type PlannedRecord } from '../sync/planned-record.js';
import { elapsedText, statisticsTable } from './statistics-table.js';

/** Records a section lists without --verbose. */
export const LISTED = 50;
/** Characters of a value shown before it is cut. */
const VALUE_WIDTH = 60;

const SECTIONS: ReadonlyArray<[PlannedAction, string]> = [
  ['create', 'Create'],
  ['update', 'Update'],
  ['unchanged', 'Unchanged'],
  ['skip', 'Skip'],
  ['fail', 'Fail'],
];

export interface PlanSubject {
  sync: SyncDefinition;
  /** The `--where` given, AND-ed with the sync's own. */
  whereClause?: string;
  actionParams: readonly ActionParam[];
}

/** A value as the plan shows it: JSON, cut at VALUE_WIDTH characters; `(none)` for a group entry that does not exist. */
export function valueText(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner)) ?? String(value);
  const characters = Array.from(text);
  if (characters.length <= VALUE_WIDTH) return text;
  const quoted = typeof value === 'string';
  const length = quoted
    ? `${Array.from(value).length.toLocaleString('en')} characters`
    : `${characters.length.toLocaleString('en')} characters of JSON`;
  return `${characters.slice(0, VALUE_WIDTH - 1).join('')}…${quoted ? '"' : ''} (${length})`;
}

/** The header: what is planned, from where to where, under which filters. */
export function planHeader(subject: PlanSubject): string[] {
  const { sync, whereClause, actionParams } = subject;
  const { source, target, match } = sync;
  const from = source.recordStore
    ? `the record store of ${sync.id}`
    : source.object !== undefined
      ? `${source.system}/${source.object}`
      : `${source.system} query ${source.query}`;
  const filters = [source.where, whereClause === undefined ? undefined : `(--where) ${whereClause}`].filter(
    (filter) => filter !== undefined,
  );
  // The match rules that are not the defaults (create, update, fail), as the definition spells them.
  const rules =
    match === undefined
      ? []
      : [
          match.onNoMatch === 'create' ? '' : `onNoMatch: ${match.onNoMatch}`,
          match.onMatch === 'update' ? '' : `onMatch: ${match.onMatch}`,
          match.onMultipleMatches === 'fail' ? '' : `onMultipleMatches: ${match.onMultipleMatches}`,
        ].filter((rule) => rule !== '');
  const lines = [
    `Dry run of ${sync.id}${sync.name === undefined ? '' : ` (${sync.name})`}: nothing is written`,
    `  from   ${from}${filters.length === 0 ? '' : ` where ${filters.join(' and ')}`}`,
    `  to     ${target.system}/${target.object}${match === undefined ? ', every record created (no match)' : `, matched by ${match.where}`}${rules.length === 0 ? '' : ` (${rules.join(', ')})`}`,
  ];
  if (actionParams.length > 0) lines.push(`  params ${actionParams.map((param) => `${param.Name}=${param.Value}`).join(', ')}`);
  return lines;
}

export class PlanText {
  readonly counts: Record<PlannedAction, number> = { create: 0, update: 0, unchanged: 0, skip: 0, fail: 0 };
  private readonly listed = new Map<PlannedAction, PlannedRecord[]>(SECTIONS.map(([action]) => [action, []]));
  private readonly sourceName: string;
  private readonly targetName: string;

  constructor(
    private readonly subject: PlanSubject,
    private readonly verbose: boolean,
  ) {
    const { source, target } = subject.sync;
    this.sourceName = source.recordStore ? 'stored record' : (source.object ?? source.query ?? 'record');
    this.targetName = target.object;
  }

  add(record: PlannedRecord): void {
    this.counts[record.action] += 1;
    if (record.action === 'unchanged' && !this.verbose) return;
    const list = this.listed.get(record.action)!;
    list.push(record);
    // Records arrive nearly in source order (per page, those the precondition or mapping leave out
    // first): keep the first LISTED by position, sorting now and then rather than on every record.
    if (!this.verbose && list.length >= 2 * LISTED) {
      list.sort((a, b) => a.position - b.position);
      list.length = LISTED;
    }
  }

  /** The whole plan, once the run has ended. */
  render(outcome: RunOutcome, elapsedMs: number): string {
    const { sync } = this.subject;
    const c = this.counts;
    const lines = [
      ...planHeader(this.subject),
      '',
      `${outcome.status === 'Complete' ? 'Plan' : 'Plan so far'}: ${c.create.toLocaleString('en')} to create · ${c.update.toLocaleString('en')} to update · ${c.unchanged.toLocaleString('en')} unchanged · ${c.skip.toLocaleString('en')} to skip · ${c.fail.toLocaleString('en')} to fail`,
    ];
    for (const [action, title] of SECTIONS) {
      const count = this.counts[action];
      if (count === 0) continue;
      lines.push('', `${title} (${count.toLocaleString('en')})`);
      if (action === 'unchanged' && !this.verbose) {
        lines.push(`  not listed (--verbose lists them): each matches ${this.targetName} records holding every value it writes`);
        continue;
      }
      const list = this.listed.get(action)!.sort((a, b) => a.position - b.position);
      const shown = this.verbose ? list : list.slice(0, LISTED);
      for (const record of shown) lines.push(...this.recordLines(record));
      if (count > shown.length) {
        lines.push(`  … and ${(count - shown.length).toLocaleString('en')} more (--format json or --verbose lists them all)`);
      }
    }
    lines.push('');
    if (outcome.status === 'Failed') lines.push(`Stopped: ${outcome.errors[0]?.message ?? 'the run could not go on'}`, '');
    lines.push(
      ...statisticsTable(
        `${sync.id}: ${outcome.status} in ${elapsedText(elapsedMs)} (dry run: nothing was written)`,
        outcome.statistics,
        elapsedMs,
      ),
    );
    const notes: string[] = [];
    if (c.unchanged > 0) notes.push(`Skipped counts the ${c.unchanged.toLocaleString('en')} unchanged: a run leaves them as they are.`);
    if (outcome.status === 'Complete') {
      notes.push(
        `Not checked: unique keys, foreign keys and other constraints only ${sync.target.system} knows; a run may still fail records planned here.`,
      );
    }
    if (notes.length > 0) lines.push('', ...notes);
    return `${lines.join('\n')}\n`;
  }

  private sourceText(record: PlannedRecord): string {
    return record.sourceId === undefined ? `${this.sourceName} #${record.position}` : `${this.sourceName} ${record.sourceId}`;
  }

  private recordLines(record: PlannedRecord): string[] {
    const from = this.sourceText(record);
    switch (record.action) {
      case 'skip':
      case 'fail':
        return [`  ${from}: ${record.reason}`];
      case 'create': {
        const to =
          record.key === undefined
            ? `a new ${this.targetName} (its key given by ${this.subject.sync.target.system})`
            : `${this.targetName} ${keyText(record.key)}`;
        return [
          `  ${from} → ${to}`,
          ...fieldLines(
            '    ',
            Object.entries(record.values ?? {}).map(([field, value]) => [field, valueText(value)]),
          ),
        ];
      }
      case 'update':
      case 'unchanged': {
        const targets = record.targets ?? [];
        const targetText = (target: (typeof targets)[number]) =>
          `${this.targetName} ${keyText(target.key)}${target.createdBy === undefined ? '' : ` (created in this run by ${this.sourceText({ ...record, ...target.createdBy })})`}`;
        const changes = (target: (typeof targets)[number], indent: string) =>
          target.changes.length === 0
            ? [`${indent}(no change)`]
            : fieldLines(
                indent,
                target.changes.map((change) => [change.field, `${valueText(change.old)} → ${valueText(change.new)}`]),
              );
        if (targets.length === 1) {
          const [only] = targets;
          return [`  ${from} → ${targetText(only!)}`, ...(record.action === 'update' ? changes(only!, '    ') : [])];
        }
        return [
          `  ${from} → ${targets.length} ${this.targetName} records`,
          ...targets.flatMap((target) => [`    ${targetText(target)}`, ...changes(target, '      ')]),
        ];
      }
    }
  }
}

/** `name  value` lines, the names padded to one column. */
function fieldLines(indent: string, fields: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.max(0, ...fields.map(([name]) => name.length));
  return fields.map(([name, text]) => `${indent}${name.padEnd(width)}  ${text}`);
}
