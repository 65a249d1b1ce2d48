/**
 * JSONata mappings of the actions (a webhook's read, write and result mappings, a sync's mapping),
 * evaluated per record. A mapping that throws fails the call with 422 naming the record: a partial
 * answer would look like a complete one to the caller.
 */
import type { Expression as Mapping } from 'jsonata';
import { HttpProblem } from '../../errors.js';

export async function evaluateMapping(
  mapping: Mapping,
  input: unknown,
  bindings: Record<string, unknown>,
  label: string,
): Promise<unknown> {
  try {
    return await mapping.evaluate(input, bindings);
  } catch (error) {
    const message = (error as { message?: string }).message ?? String(error);
    throw new HttpProblem('mapping-failed', `${label}: ${message}`, { cause: error });
  }
}

/** Each record through `mapping`; a record the mapping turns into nothing is left out. */
export async function mapEach(
  mapping: Mapping,
  records: readonly unknown[],
  bindings: Record<string, unknown>,
  label: string,
): Promise<unknown[]> {
  const mapped: unknown[] = [];
  for (const [index, record] of records.entries()) {
    const result = await evaluateMapping(mapping, record, bindings, `${label}, record ${index + 1}`);
    if (result !== undefined) mapped.push(result);
  }
  return mapped;
}
