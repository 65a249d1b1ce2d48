/**
 * saveWithSync: the incoming record (a JSON object) or records (an array of them) run through the
 * sync as if read from its source (runtime/sync/run-records.ts): its where and precondition, its
 * mapping, its match search and create / update / skip into its target. ActionParams are the
 * request's top-level fields for an object body, none for an array.
 *
 * Answer, 200 when the run completes:
 *   { "statistics": {read, created, updated, skipped, failed},
 *     "records": [{ "index": 0, "result": "created"|"updated"|"skipped"|"failed",
 *                   "key"?: {…target key…}, "message"?: "why" }] }
 * `key` is the written target record's key (the first, under updateAll). With a resultMapping the
 * answer is instead what it makes of each written target record, read back by that key — one
 * value for an object body (204 when the record was not written), an array (null where not
 * written) for an array body.
 *
 * When every record failed, nothing was saved: 422 records-failed with each record's message. A
 * run that cannot go on (the target unreachable) answers 503 when a retry may help, else 502.
 */
import type { RecordData } from '../../../connectors/connection.js';
import { HttpProblem } from '../../errors.js';
import type { RunEnvironment } from '../../execution/process-run.js';
import { runSyncOnRecords, type GivenRecordOutcome } from '../../sync/run-records.js';
import type { WebhookAnswer, WebhookCall } from '../webhook-call.js';
import { evaluateMapping } from './apply-mapping.js';
import { actionParamsOf, isPlainRecord, recordsOf } from './request-values.js';
import { collect, systemOf } from './system-connection.js';
import { syncOf } from './sync-view.js';

export async function saveWithSync(call: WebhookCall): Promise<WebhookAnswer> {
  const { entry, ticker } = call;
  const sync = syncOf(call);
  const target = sync.definition.target;
  const label = `${target.system}/${target.object}`;
  const data = call.request.data;
  const records = recordsOf(data);
  ticker.say('start', `saveWithSync: ${records.length} record(s) through sync ${sync.definition.id} into ${label}`);
  const environment: RunEnvironment = { snapshot: call.snapshot, connections: call.connections, db: call.db, log: call.log };
  const { outcome, records: results } = await runSyncOnRecords(environment, sync, records, {
    ...(isPlainRecord(data) ? { actionParams: actionParamsOf(data) } : {}),
    ...(call.signal === undefined ? {} : { signal: call.signal }),
  });
  if (outcome.status === 'Failed') {
    const reason = outcome.errors[0]?.message ?? 'the run stopped';
    ticker.say('error', `sync ${sync.definition.id} could not run: ${reason}`);
    throw new HttpProblem(
      outcome.retryable ? 'unavailable' : 'sync-failed',
      `Sync ${sync.definition.id} could not save the records: ${reason}`,
    );
  }
  const { statistics } = outcome;
  ticker.say(
    'written',
    `created ${statistics.created}, updated ${statistics.updated}, skipped ${statistics.skipped}, failed ${statistics.failed} in ${label}`,
    { ...statistics },
  );
  for (const failed of results.filter((result) => result.result === 'failed').slice(0, 20))
    ticker.say('error', `record ${failed.index + 1}: ${failed.message ?? 'failed'}`);

  if (statistics.failed > 0 && statistics.failed === records.length) {
    throw new HttpProblem('records-failed', `Sync ${sync.definition.id} saved none of the ${records.length} record(s).`, {
      errors: results
        .slice(0, 100)
        .map((result) => ({ path: Array.isArray(data) ? `/${result.index}` : '', message: result.message ?? 'failed' })),
    });
  }
  if (entry.resultMapping === undefined) {
    return { status: 200, body: { statistics, records: results.map(resultJson) } };
  }
  const { connection } = await systemOf(call, target.system);
  const answers: unknown[] = [];
  for (const result of results) {
    const key = result.keys?.[0];
    if (key === undefined) {
      answers.push(null);
      continue;
    }
    const [stored] = await collect(connection.read(target.object, { id: key, limit: 1 }), 1);
    answers.push(
      stored === undefined
        ? null
        : ((await evaluateMapping(
            entry.resultMapping,
            stored,
            { request: data, action: result.result },
            `resultMapping, record ${result.index + 1}`,
          )) ?? null),
    );
  }
  if (Array.isArray(data)) return { status: 200, body: answers };
  const only = answers[0];
  return only === null || only === undefined ? { status: 204 } : { status: 200, body: only };
}

function resultJson(result: GivenRecordOutcome): Record<string, unknown> {
  const key: RecordData | undefined = result.keys?.[0];
  return {
    index: result.index,
    result: result.result,
    ...(key === undefined ? {} : { key }),
    ...(result.message === undefined ? {} : { message: result.message }),
  };
}
