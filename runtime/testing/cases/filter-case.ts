/**
 * A filter case: whether a source record is synced by the sync, judged as a run judges it — its
 * source `where` (with `#params.Name#` from the case's ActionParams) as records without a connector
 * to push it to are filtered (source-pages.ts), then its precondition (run-sync.ts). A record
 * passes when both hold; a sync with neither passes every record.
 *
 * A connector that pushes `where` down (SQL, OData) compares in its own database; the in-memory
 * evaluation follows the expression language's rules, which the connectors are tested to share.
 */
import { paramPlaceholders, paramsObject } from '../../sync/action-params.js';
import { passesPrecondition } from '../../sync/run-sync.js';
import { memoryFilter } from '../../sync/source-pages.js';
import type { CaseRunner, FilterCase } from '../test-case.js';

export const runFilterCase: CaseRunner<FilterCase> = async (testCase, context) => {
  const sync = context.snapshot.syncs.get(testCase.sync)!;
  const params = paramsObject(Object.entries(testCase.params ?? {}).map(([Name, Value]) => ({ Name, Value: String(Value) })));
  const where = sync.where === undefined ? undefined : memoryFilter(sync.where, paramPlaceholders(params))(testCase.record);
  const precondition = sync.precondition === undefined ? undefined : passesPrecondition(sync, testCase.record, params);
  const passes = where !== false && precondition !== false;
  if (passes === testCase.expect) return { failures: [] };
  const verdicts = [
    where === undefined ? undefined : `where (${sync.definition.source.where}) is ${where}`,
    precondition === undefined ? undefined : `precondition (${sync.definition.precondition}) is ${precondition}`,
  ].filter((text): text is string => text !== undefined);
  const why = verdicts.length === 0 ? `sync ${sync.definition.id} has neither where nor precondition` : verdicts.join(', ');
  return {
    failures: [
      {
        message: `expected the record to be ${testCase.expect ? 'synced' : 'left out'}, but it is ${passes ? 'synced' : 'left out'}: ${why}`,
        at: testCase.at(['expect']),
        expected: testCase.expect,
        actual: passes,
      },
    ],
  };
};
