/**
 * A sync case: the case's fixture rows go into scratch SQLite databases standing in for every
 * system (scratch/scratch-runtime.ts), then the sync runs once through the sync engine
 * (sync/run-sync.ts) with the case's `params` (ActionParams, as a webhook start passes them) and
 * `where` (a WhereClause, AND-ed with the sync's own filter). Then the expectations, each failing
 * at its own line:
 *
 * - `statistics`: only the counts listed (read, created, updated, skipped, failed);
 * - `errors`: the complete list of the run's errors, in any order — each entry matches one error
 *   whose message contains its `message` (and whose source id is its `sourceId`, when given), and
 *   every error must be matched by one entry. Without `errors`, a run with errors fails the case —
 *   except per-record errors when `statistics.failed` is listed: the case has counted them;
 * - `systems`: rows per object (compare/compare-rows.ts).
 *
 * A run that stops (Failed) says why as its first error, without a source id: a case expecting the
 * stop lists that reason under `errors`.
 */
import type { SyncEntry } from '../../../definitions/snapshot.js';
import { HttpProblem } from '../../errors.js';
import type { NewItemError } from '../../queue/complete.js';
import type { ActionParam } from '../../queue/queue-item.js';
import { runSync } from '../../sync/run-sync.js';
import { parseWhereClause, WhereClauseError } from '../../sync/where-clause.js';
import { actionParamsOf } from '../../webhooks/actions/request-values.js';
import { compareSystems } from '../compare/compare-rows.js';
import type { Scratch } from '../scratch/scratch-runtime.js';
import { syncUses } from '../scratch/system-uses.js';
import type { CaseContext, CaseFailure, CaseOutcome, CaseRunner, SyncCase } from '../test-case.js';
import { withScratch } from './with-scratch.js';

type Statistic = keyof NonNullable<SyncCase['expect']['statistics']>;
const statisticNames: readonly Statistic[] = ['read', 'created', 'updated', 'skipped', 'failed'];

export const runSyncCase: CaseRunner<SyncCase> = async (testCase, context) => {
  const { at } = testCase;
  const sync = context.snapshot.syncs.get(testCase.sync);
  if (sync === undefined) {
    const known = [...context.snapshot.syncs.keys()].sort();
    return {
      failures: [{ message: `there is no sync '${testCase.sync}'; the syncs are ${known.join(', ') || 'none'}`, at: at(['sync']) }],
    };
  }
  const where = String(testCase.where ?? '').trim() === '' ? undefined : String(testCase.where);
  if (where !== undefined) {
    try {
      parseWhereClause(context.snapshot, testCase.sync, where);
    } catch (error) {
      if (!(error instanceof WhereClauseError)) throw error;
      return { failures: [{ message: error.message, at: at(['where']) }] };
    }
  }
  let actionParams: ActionParam[];
  try {
    actionParams = actionParamsOf(testCase.params ?? {});
  } catch (error) {
    if (!(error instanceof HttpProblem)) throw error;
    return { failures: [{ message: `params: ${error.detail}`, at: at(['params']) }] };
  }
  return withScratch(
    {
      at,
      ...(testCase.systems === undefined ? {} : { systems: testCase.systems }),
      processPath: ['sync'],
      uses: (scratch) => syncUses(scratch.snapshot, testCase.sync),
    },
    context,
    (scratch) => runAndCompare(testCase, context, scratch, { where, actionParams }),
  );
};

async function runAndCompare(
  testCase: SyncCase,
  context: CaseContext,
  scratch: Scratch,
  start: { where: string | undefined; actionParams: ActionParam[] },
): Promise<CaseOutcome> {
  const { at, expect } = testCase;
  const sync: SyncEntry = scratch.snapshot.syncs.get(testCase.sync)!;
  const { recordStore: _read, ...outcome } = await runSync(
    { snapshot: scratch.snapshot, connections: scratch.connections, db: scratch.db, log: scratch.log },
    {
      processId: testCase.sync,
      ...(start.where === undefined ? {} : { whereClause: start.where }),
      ...(start.actionParams.length === 0 ? {} : { actionParams: start.actionParams }),
      ...(context.signal === undefined ? {} : { signal: context.signal }),
    },
    sync,
  );
  const failures: CaseFailure[] = [];
  for (const [name, expected] of Object.entries(expect.statistics ?? {})) {
    const statistic = name as Statistic;
    if (!statisticNames.includes(statistic)) {
      failures.push({
        message: `statistics has no count '${name}'; the counts are ${statisticNames.join(', ')}`,
        at: at(['expect', 'statistics', name]),
      });
    } else if (outcome.statistics[statistic] !== expected) {
      failures.push({
        message: `${name}: ${outcome.statistics[statistic]} record(s), expected ${expected}`,
        at: at(['expect', 'statistics', name]),
        expected,
        actual: outcome.statistics[statistic],
      });
    }
  }
  failures.push(...compareErrors(testCase, outcome.status, outcome.errors));
  failures.push(...(await compareSystems(scratch, expect.systems, at)));
  return { failures };
}

function errorText(error: NewItemError): string {
  return `${error.sourceId === undefined ? '' : `[${error.sourceId}] `}${error.message}`;
}

function compareErrors(testCase: SyncCase, status: 'Complete' | 'Failed', actual: readonly NewItemError[]): CaseFailure[] {
  const { at, expect } = testCase;
  if (expect.errors === undefined) {
    if (status === 'Failed')
      return [{ message: `the run failed: ${actual.map(errorText).join('; ')}`, at: at(['sync']), actual: actual.map(errorText) }];
    if (actual.length === 0 || expect.statistics?.failed !== undefined) return [];
    return [
      {
        message: `the run had ${actual.length} error(s) the case does not expect (list them under expect.errors, or count them in expect.statistics.failed): ${actual.map(errorText).join('; ')}`,
        at: at(['sync']),
        actual: actual.map(errorText),
      },
    ];
  }
  const failures: CaseFailure[] = [];
  const used = new Set<number>();
  for (const [index, expected] of expect.errors.entries()) {
    const found = actual.findIndex(
      (error, position) =>
        !used.has(position) &&
        (expected.sourceId === undefined || String(expected.sourceId) === error.sourceId) &&
        error.message.includes(String(expected.message ?? '')),
    );
    if (found >= 0) used.add(found);
    else
      failures.push({
        message: `no error of the run ${expected.sourceId === undefined ? '' : `for source record ${expected.sourceId} `}contains ${JSON.stringify(expected.message)}`,
        at: at(['expect', 'errors', index]),
        expected,
        actual: actual.filter((_, position) => !used.has(position)).map(errorText),
      });
  }
  const unexpected = actual.filter((_, position) => !used.has(position));
  if (unexpected.length > 0 && failures.length === 0)
    failures.push({
      message: `the run had ${unexpected.length} error(s) expect.errors does not list: ${unexpected.map(errorText).join('; ')}`,
      at: at(['expect', 'errors']),
      actual: unexpected.map(errorText),
    });
  return failures;
}
