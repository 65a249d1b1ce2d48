/**
 * Which runner runs which kind of case: a table, so the dispatcher knows no kind by name and a
 * kind whose runner is not in it is reported at its case's line instead of crashing the run.
 */
import { runConditionCase } from './cases/condition-case.js';
import { runFilterCase } from './cases/filter-case.js';
import { runMappingCase } from './cases/mapping-case.js';
import { runSyncCase } from './cases/sync-case.js';
import { runWebhookCase } from './cases/webhook-case.js';
import type { CaseRunner, TestCase } from './test-case.js';

export type CaseRunners = { readonly [K in TestCase['kind']]?: CaseRunner<Extract<TestCase, { kind: K }>> };

export const caseRunners: CaseRunners = Object.freeze({
  mapping: runMappingCase,
  filter: runFilterCase,
  condition: runConditionCase,
  webhook: runWebhookCase,
  sync: runSyncCase,
});
