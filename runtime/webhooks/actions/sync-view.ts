/**
 * What the sync-based reads share: the webhook's sync, the ActionParams its filters and mapping
 * see (the request's top-level fields, as startSync passes them: `#params.Name#`, `$params`), and
 * each source record through the sync as a run would take it — the precondition leaves records out,
 * the mapping transforms the rest.
 */
import type { PlaceholderValues, RecordData } from '../../../connectors/connection.js';
import type { SyncEntry } from '../../../definitions/snapshot.js';
import { HttpProblem } from '../../errors.js';
import { evaluateCondition, resolvePath } from '../../../definitions/expression/index.js';
import { paramsObject, recordOrParamPlaceholders, type Params } from '../../sync/action-params.js';
import type { WebhookCall } from '../webhook-call.js';
import { evaluateMapping } from './apply-mapping.js';
import { actionParamsOf } from './request-values.js';

export function syncOf(call: WebhookCall): SyncEntry {
  const id = call.entry.definition.sync!;
  const sync = call.snapshot.syncs.get(id);
  if (sync === undefined) throw new HttpProblem('action-not-possible', `Webhook ${call.entry.definition.id}: sync '${id}' is not defined.`);
  return sync;
}

export function requestParams(call: WebhookCall): Params {
  return paramsObject(actionParamsOf(call.request.data));
}

/**
 * Placeholders of a filter that ANDs the sync's where (`#params.Name#`) with the webhook's search
 * (`#Field#`, a request value): params first, then the request data.
 */
export function syncPlaceholders(call: WebhookCall, params: Params): PlaceholderValues {
  return recordOrParamPlaceholders(call.request.data, params);
}

export async function throughSync(
  sync: SyncEntry,
  records: readonly RecordData[],
  params: Params,
): Promise<{ mapped: RecordData[]; left: number }> {
  const mapped: RecordData[] = [];
  let left = 0;
  for (const [index, record] of records.entries()) {
    if (sync.precondition !== undefined) {
      const scope = {
        field: (path: readonly string[]) => resolvePath(record, path),
        placeholder: recordOrParamPlaceholders(record, params),
      };
      if (!evaluateCondition(sync.precondition, scope)) {
        left += 1;
        continue;
      }
    }
    const label = `mapping of sync ${sync.definition.id}, record ${index + 1}`;
    const result = await evaluateMapping(sync.mapping, record, { params }, label);
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      throw new HttpProblem(
        'mapping-failed',
        `${label}: produced ${result === undefined ? 'nothing' : Array.isArray(result) ? 'an array' : JSON.stringify(result)}, not an object`,
      );
    }
    mapped.push(result as RecordData);
  }
  return { mapped, left };
}
