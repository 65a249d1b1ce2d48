/**
 * A condition case: whether a call with the case's request runs the webhook's action, judged as
 * the endpoint judges it (execute-webhook.ts): the request read as it would arrive (cases/test-request.ts, as for
 * a webhook case),
 * its text fields converted and checked against the request schema, then the execution condition
 * over its data. A request the endpoint refuses before the condition (broken JSON, the schema)
 * never reaches it: the case fails saying so. The secret, signature and rate limit are not part of
 * the condition and are not checked.
 */
import { HttpProblem } from '../../errors.js';
import { acceptedRequest, conditionHolds } from '../../webhooks/execute-webhook.js';
import type { CaseRunner, ConditionCase } from '../test-case.js';
import { prepareRequest } from './test-request.js';

export const runConditionCase: CaseRunner<ConditionCase> = async (testCase, context) => {
  const entry = context.snapshot.webhooks.get(testCase.webhook)!;
  let holds: boolean;
  try {
    const prepared = await prepareRequest(entry.definition, testCase.request);
    if (prepared.refusal !== undefined) throw prepared.refusal;
    holds = conditionHolds(entry, acceptedRequest(entry, prepared.request));
  } catch (error) {
    if (!(error instanceof HttpProblem)) throw error;
    return {
      failures: [
        {
          message: `the webhook refuses this request (${error.status}) before its condition: ${error.detail}`,
          at: testCase.at(['request']),
        },
      ],
    };
  }
  if (holds === testCase.expect) return { failures: [] };
  const condition = entry.definition.condition;
  const why = condition === undefined ? `webhook ${entry.definition.id} has no condition` : `the condition (${condition}) is ${holds}`;
  return {
    failures: [
      {
        message: `expected the action ${testCase.expect ? 'to run' : 'not to run'}, but it ${holds ? 'runs' : 'does not'}: ${why}`,
        at: testCase.at(['expect']),
        expected: testCase.expect,
        actual: holds,
      },
    ],
  };
};
