/**
 * What webhook and sync cases share around their run: the scratch world opened, the process's
 * uses of systems checked for stand-ins (scratch/system-uses.ts), the fixture rows loaded — each
 * problem a failure at its line — and everything closed afterwards, whatever happened.
 */
import { loadFixtures } from '../scratch/load-fixtures.js';
import { openScratch, type Scratch } from '../scratch/scratch-runtime.js';
import { refusedUses, type SystemUse } from '../scratch/system-uses.js';
import type { CaseContext, CaseFailure, CaseOutcome, Locate, SystemRows } from '../test-case.js';

export interface ScratchCase {
  at: Locate;
  systems?: SystemRows;
  /** Where the case names its process (`['webhook']`, `['sync']`): refused uses fail there. */
  processPath: readonly string[];
  uses: (scratch: Scratch) => SystemUse[];
}

export async function withScratch(
  testCase: ScratchCase,
  context: CaseContext,
  run: (scratch: Scratch) => Promise<CaseOutcome>,
): Promise<CaseOutcome> {
  let scratch: Scratch;
  try {
    scratch = await openScratch(context.snapshot, context.scratchDirectory);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { failures: [{ message: `the scratch databases of the case could not be made: ${reason}`, at: testCase.at([]) }] };
  }
  try {
    const refused: CaseFailure[] = refusedUses(testCase.uses(scratch), scratch.refusal).map((message) => ({
      message,
      at: testCase.at(testCase.processPath),
    }));
    if (refused.length > 0) return { failures: refused };
    const fixtures = await loadFixtures(scratch, testCase.systems, testCase.at);
    if (fixtures.length > 0) return { failures: fixtures };
    return await run(scratch);
  } finally {
    await scratch.close();
  }
}
