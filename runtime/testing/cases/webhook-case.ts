/**
 * A webhook case: the case's request goes through the webhook for real — `executeWebhook`, the code
 * the endpoint, the console's test and replay run (security, request schema, condition,
 * idempotency, the action, redirect) — in this process, against scratch SQLite databases standing
 * in for every system (scratch/scratch-runtime.ts), filled with the case's fixture rows first.
 * Runs the call queued are run to their end (run-queued.ts). Then the expectations, each failing
 * at its own line:
 *
 * - `status`: the answer's status; without it, the answer must not be an error (below 400);
 * - `body`: matched as compare/match-value.ts says (objects by the keys they list, lists exactly);
 * - `ticker`: lines found in order (compare/compare-lines.ts); a line is `kind: message`
 *   (`condition: the execution condition is true`), then the queued runs' `run:` lines;
 * - `systems`: rows per object (compare/compare-rows.ts).
 *
 * A queued run that does not end Complete without failed records fails the case, unless a
 * `ticker` line expects one of its lines: a case that means it says so.
 */
import { randomUUID } from 'node:crypto';
import { runWebhookAction } from '../../webhooks/actions/index.js';
import { executeWebhook, type WebhookResult } from '../../webhooks/execute-webhook.js';
import { tickerBus, type TickerMessage } from '../../webhooks/ticker.js';
import { compareLines, mentions } from '../compare/compare-lines.js';
import { compareSystems } from '../compare/compare-rows.js';
import { mismatchOf, pathText } from '../compare/match-value.js';
import type { Scratch } from '../scratch/scratch-runtime.js';
import { webhookUses } from '../scratch/system-uses.js';
import type { CaseContext, CaseFailure, CaseOutcome, CaseRunner, WebhookCase } from '../test-case.js';
import { runQueued, type QueuedRun } from './run-queued.js';
import { prepareRequest } from './test-request.js';
import { withScratch } from './with-scratch.js';

export const runWebhookCase: CaseRunner<WebhookCase> = async (testCase, context) => {
  const { at } = testCase;
  if (!context.snapshot.webhooks.has(testCase.webhook)) {
    const known = [...context.snapshot.webhooks.keys()].sort();
    return {
      failures: [
        { message: `there is no webhook '${testCase.webhook}'; the webhooks are ${known.join(', ') || 'none'}`, at: at(['webhook']) },
      ],
    };
  }
  return withScratch(
    {
      at,
      ...(testCase.systems === undefined ? {} : { systems: testCase.systems }),
      processPath: ['webhook'],
      uses: (scratch) => webhookUses(scratch.snapshot, testCase.webhook),
    },
    context,
    (scratch) => callAndCompare(testCase, context, scratch),
  );
};

async function callAndCompare(testCase: WebhookCase, context: CaseContext, scratch: Scratch): Promise<CaseOutcome> {
  const { at, expect } = testCase;
  const { result, lines } = await call(testCase, context, scratch);
  const runs = await runQueued(scratch, context.signal);
  const ticker = [...lines, ...runs.flatMap((run) => run.lines)];
  const failures: CaseFailure[] = [];

  // A 500's detail tells the caller nothing; the reader of a test is the operator, who may read the log.
  const logged = result.status >= 500 ? scratch.loggedErrors() : [];
  const answered = `the webhook answered ${result.status}${detailOf(result)}${logged.length > 0 ? ` (the server log: ${logged.join('; ')})` : ''}`;
  if (expect.status !== undefined) {
    if (result.status !== expect.status)
      failures.push({
        message: `${answered}, expected ${expect.status}`,
        at: at(['expect', 'status']),
        expected: expect.status,
        actual: result.status,
      });
  } else if (result.status >= 400) {
    failures.push({
      message: `${answered}; a case that expects a refusal says so in expect.status`,
      at: at(['webhook']),
      actual: result.status,
    });
  }
  if (expect.body !== undefined) {
    const mismatch = mismatchOf(expect.body, result.body);
    if (mismatch !== undefined)
      failures.push({
        message: `the answer's body: ${pathText(mismatch.path)} ${mismatch.reason}`,
        at: at(['expect', 'body', ...mismatch.path]),
        expected: mismatch.expected,
        actual: mismatch.actual,
      });
  }
  if (expect.ticker !== undefined) failures.push(...compareLines(expect.ticker, ticker, at, ['expect', 'ticker']));
  failures.push(...troubledRuns(runs, expect.ticker, testCase));
  failures.push(...(await compareSystems(scratch, expect.systems, at)));
  return { failures, ticker };
}

/** The call through executeWebhook, with the ticker's lines as they were said. */
async function call(testCase: WebhookCase, context: CaseContext, scratch: Scratch): Promise<{ result: WebhookResult; lines: string[] }> {
  const entry = scratch.snapshot.webhooks.get(testCase.webhook)!;
  const { request, refusal } = await prepareRequest(entry.definition, testCase.request ?? {});
  const callId = randomUUID();
  const lines: string[] = [];
  const listen = (message: TickerMessage): void => {
    lines.push(`${message.kind}: ${message.message}`);
  };
  // Subscribed before the call, as the console's test does: not even the first line is missed.
  tickerBus.on(callId, listen);
  try {
    const result = await executeWebhook(
      { snapshot: scratch.snapshot, connections: scratch.connections, db: scratch.db, log: scratch.log, runAction: runWebhookAction },
      testCase.webhook,
      request,
      {
        callId,
        ...(context.signal === undefined ? {} : { signal: context.signal }),
        ...(refusal === undefined ? {} : { refusal }),
      },
    );
    return { result, lines };
  } finally {
    tickerBus.off(callId, listen);
  }
}

function troubledRuns(runs: readonly QueuedRun[], expected: readonly string[] | undefined, testCase: WebhookCase): CaseFailure[] {
  return runs
    .filter((run) => !run.clean && !mentions(expected, run.lines))
    .map((run) => ({
      message: `the run the call queued did not end cleanly: ${run.lines.join('; ')} (a case that expects this lists one of these lines under expect.ticker)`,
      at: testCase.at(['webhook']),
      actual: run.lines,
    }));
}

/** `: <detail>` of a problem answer, for the message. */
function detailOf(result: WebhookResult): string {
  const body = result.body;
  const detail = body !== null && typeof body === 'object' ? (body as { detail?: unknown }).detail : undefined;
  return typeof detail === 'string' ? ` (${detail})` : '';
}
