/**
 * A mapping case: the sync's JSONata mapping run on one source record with the case's
 * ActionParams, exactly as a sync run maps a record (run-sync.ts): the compiled closures where
 * they answer, JSONata's own evaluate otherwise, `$params` bound to the parameters, and a result
 * that is no object of target fields failing the record. The case expects that record (`output`),
 * or a failure whose message contains `error`.
 */
import { evaluateMappingNow, NOT_NOW } from '../../../definitions/mapping/compile-mapping.js';
import { paramsObject } from '../../sync/action-params.js';
import { notTargetFields } from '../../sync/run-sync.js';
import { describeDifference, differences, showValue, withoutPaths } from '../compare-expected.js';
import type { CaseFailure, CaseRunner, MappingCase } from '../test-case.js';

type Mapped = { output: unknown } | { error: string };

export const runMappingCase: CaseRunner<MappingCase> = async (testCase, context) => {
  const sync = context.snapshot.syncs.get(testCase.sync)!;
  const params = paramsObject(Object.entries(testCase.params ?? {}).map(([Name, Value]) => ({ Name, Value: String(Value) })));
  const bindings = { params };
  let mapped: Mapped;
  try {
    const now = evaluateMappingNow(sync.mapping, testCase.input, bindings);
    const output = now === NOT_NOW ? await sync.mapping.evaluate(testCase.input, bindings) : now;
    const refused = notTargetFields(output);
    mapped = refused === undefined ? { output } : { error: refused };
  } catch (error) {
    mapped = { error: `mapping: ${(error as { message?: string }).message ?? String(error)}` };
  }
  return { failures: testCase.error === undefined ? outputFailures(testCase, mapped) : errorFailures(testCase, testCase.error, mapped) };
};

function outputFailures(testCase: MappingCase, mapped: Mapped): CaseFailure[] {
  if ('error' in mapped) {
    return [{ message: `the mapping failed: ${mapped.error}`, at: testCase.at(['output']), expected: testCase.output }];
  }
  const ignore = testCase.ignore ?? [];
  // The diff shows what was compared: ignored fields (a timestamp) would only be noise in it.
  const shown = withoutPaths(mapped.output, ignore);
  return differences(testCase.output, mapped.output, { ignore }).map((difference) => ({
    message: `output.${describeDifference(difference)}`,
    // The line that states the expectation; a field nobody expected is shown at `output`.
    at: testCase.at(['output', ...(difference.kind === 'unexpected' ? difference.path.slice(0, -1) : difference.path)]),
    expected: testCase.output,
    actual: shown,
  }));
}

function errorFailures(testCase: MappingCase, text: string, mapped: Mapped): CaseFailure[] {
  if ('output' in mapped) {
    return [
      {
        message: `expected the mapping to fail with an error containing ${showValue(text)}, but it produced a record`,
        at: testCase.at(['error']),
        actual: mapped.output,
      },
    ];
  }
  if (mapped.error.includes(text)) return [];
  return [
    {
      message: `the mapping failed, but its error does not contain ${showValue(text)}`,
      at: testCase.at(['error']),
      expected: text,
      actual: mapped.error,
    },
  ];
}
