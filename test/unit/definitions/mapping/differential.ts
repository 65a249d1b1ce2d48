/**
 * Runs one expression on one input through JSONata itself and through compileMapping, and
 * asserts the same outcome: deep-equal results (prototypes, -0 and NaN included), or both fail.
 */
import assert from 'node:assert/strict';
import jsonata from 'jsonata';
import { compileMapping, evaluateMappingNow, NOT_NOW } from '../../../../definitions/mapping/compile-mapping.js';

export type Outcome = { ok: true; value: unknown } | { ok: false; message: string };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, message: String((error as { message?: unknown }).message ?? error) };
  }
}

/** Text for a message; JSONata's objects have no prototype, so String() would throw. */
function show(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return '(unprintable)';
  }
}

/** Whether the compiled closures answered (true) or handed the record to JSONata (false). */
export async function assertSame(text: string, input: unknown, bindings?: Record<string, unknown>): Promise<boolean> {
  const expected = await outcome(() => jsonata(text).evaluate(input, bindings));
  const mapping = compileMapping(text);
  const actual = await outcome(() => mapping.evaluate(input, bindings));
  const label = `${text} on ${show(input)}`;
  if (expected.ok) {
    assert.ok(actual.ok, `${label}: JSONata gives ${show(expected.value)}, compiled fails: ${actual.ok ? '' : actual.message}`);
    assert.deepStrictEqual(actual.value, expected.value, label);
  } else {
    assert.ok(!actual.ok, `${label}: JSONata fails (${expected.message}), compiled gives ${actual.ok ? show(actual.value) : ''}`);
    assert.ok(actual.message.length > 0);
  }
  return evaluateMappingNow(mapping, input, bindings) !== NOT_NOW;
}
