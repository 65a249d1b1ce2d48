/**
 * saveWithSystem: a direct write of one record to the webhook's system/object — no sync.
 *
 * 1. The record: the write mapping over the request data, or the data as it is; it must be one JSON
 *    object. Its properties named like a group of the object are that group's entries by type.
 * 2. The target search (`targetSearch`, `#Field#` = request values, bound) finds the record to
 *    write: none → onNoMatch (create, or skip); one → onMatch (update it, by its own key, or skip);
 *    several → 409 several-matches and nothing is written (guessing which to update would be
 *    worse). Without a target search the connector writes by the object's key when the record holds
 *    it (update or create), and creates otherwise.
 *    A create after a search of `Field = #value#` equalities (match-plan.ts) goes to the connector
 *    with those values as its match (the new record takes them, as a sync's create does), which
 *    looks again and creates atomically per match: identical calls at the same moment create one
 *    record, and the others find it and answer as a match (updated, or skipped under onMatch
 *    skip). Other searches (ranges, OR, functions), and searches of read-only fields, cannot be
 *    given as a match: the search and the create stay two steps.
 * 3. The answer: with a result mapping (else the read mapping), the stored record is read back by
 *    the key the write answered — so generated keys are there — and mapped: 200 with that. When the
 *    match rules skip, the record found (if any) is mapped the same way, so "create unless it
 *    exists, answer its id" works. Nothing to answer: 204.
 */
import type { ObjectDescription, RecordData, WriteRequest, WriteResult } from '../../../connectors/connection.js';
import { ConnectorError } from '../../../connectors/connector-error.js';
import { HttpProblem } from '../../errors.js';
import type { Expression } from '../../../definitions/expression/index.js';
import { equalityValues, matchPlan } from '../../sync/match-plan.js';
import type { WebhookAnswer, WebhookCall } from '../webhook-call.js';
import { evaluateMapping } from './apply-mapping.js';
import { isPlainRecord, requestPlaceholders } from './request-values.js';
import { collect, systemOf } from './system-connection.js';
import { sayFilter } from './ticker-filter.js';
import { setOwnField } from '../../../connectors/records/own-field.js';

export async function saveWithSystem(call: WebhookCall): Promise<WebhookAnswer> {
  const { entry, ticker } = call;
  const hook = entry.definition;
  const object = hook.object!;
  const label = `${hook.system}/${object}`;
  const data = call.request.data;
  const signal = call.signal === undefined ? {} : { signal: call.signal };
  ticker.say('start', `saveWithSystem: writing ${label}`);
  const { connection } = await systemOf(call, hook.system!);
  const description = connection.describe(object);

  const record =
    entry.writeMapping === undefined ? data : await evaluateMapping(entry.writeMapping, data, { request: data }, 'writeMapping');
  if (!isPlainRecord(record)) {
    const what = record === undefined ? 'nothing' : Array.isArray(record) ? 'an array' : typeof record;
    if (entry.writeMapping !== undefined)
      throw new HttpProblem('mapping-failed', `writeMapping produced ${what}, not one record (a JSON object) for ${label}.`);
    throw new HttpProblem('invalid-request', `The request data must be one JSON object (a record of ${label}), not ${what}.`, {
      errors: [{ path: '', message: 'expected a JSON object' }],
    });
  }
  const groupNames = new Set(description.groups.map((group) => group.name));
  const values: RecordData = {};
  const groups: NonNullable<WriteRequest['groups']> = {};
  for (const [name, value] of Object.entries(record)) {
    setOwnField(groupNames.has(name) && isPlainRecord(value) ? groups : values, name, value);
  }

  let match: RecordData | undefined;
  let onMatch: WriteRequest['onMatch'];
  if (entry.targetSearch !== undefined) {
    sayFilter(ticker, 'targetSearch', entry.targetSearch);
    // Two found tell one from several.
    const found = await collect(
      connection.read(object, { filter: entry.targetSearch, placeholders: requestPlaceholders(data), limit: 2, pageSize: 2, ...signal }),
      2,
    );
    ticker.say('hits', `${found.length === 2 ? 'several' : found.length} record(s) of ${label} match`, { count: found.length });
    const existing = found[0];
    if (found.length > 1) {
      throw new HttpProblem(
        'several-matches',
        `Several records of ${label} match the webhook's targetSearch; nothing was written. Make the search identify one record.`,
      );
    }
    if (existing === undefined && hook.onNoMatch === 'skip') {
      ticker.say('written', `nothing written: no record of ${label} matches and onNoMatch is skip`, { action: 'skipped' });
      return { status: 204 };
    }
    if (existing !== undefined && hook.onMatch === 'skip') {
      ticker.say('written', `nothing written: a record of ${label} matches and onMatch is skip`, { action: 'skipped' });
      return answerWith(call, existing, 'skipped');
    }
    // The found record's own key identifies it: the search fields may not be unique.
    if (existing !== undefined) match = Object.fromEntries(description.key.map((field) => [field, existing[field]]));
    else {
      match = searchedValues(entry.targetSearch, description, data);
      onMatch = hook.onMatch === 'skip' ? 'skip' : 'update';
    }
  }

  const request: WriteRequest = {
    values,
    ...(Object.keys(groups).length > 0 ? { groups } : {}),
    ...(match === undefined ? {} : { match }),
    ...(onMatch === undefined ? {} : { onMatch }),
  };
  let written: WriteResult;
  try {
    written = await connection.write(object, request);
  } catch (error) {
    // Created since the search by writers that do not take turns with this one (another program).
    if (error instanceof ConnectorError && error.details?.reason === 'several-matches') {
      throw new HttpProblem(
        'several-matches',
        `Several records of ${label} match the webhook's targetSearch; nothing was written. Make the search identify one record.`,
        { cause: error },
      );
    }
    throw error;
  }
  if (written.action === 'skipped')
    ticker.say('written', `nothing written: a record of ${label} was created meanwhile and onMatch is skip`, {
      action: 'skipped',
      key: written.key,
    });
  else ticker.say('written', `${written.action} a record of ${label}`, { action: written.action, key: written.key });
  const mapping = entry.resultMapping ?? entry.readMapping;
  if (mapping === undefined) return { status: 204 };
  const [stored] = await collect(connection.read(object, { id: written.key, limit: 1, ...signal }), 1);
  if (stored === undefined) {
    ticker.say('warning', `the written record of ${label} cannot be read back by its key; nothing to answer`);
    return { status: 204 };
  }
  return answerWith(call, stored, written.action);
}

/**
 * The values a `Field = #value#` search looks for, by field — the match of an atomic create, which
 * the new record takes — or undefined for any other search; when a value is missing (`= null`
 * finds nothing, so there is nothing to find again); and when a field is read-only (a new record
 * cannot take the value, so no two creates can make the same one).
 */
function searchedValues(search: Expression, description: ObjectDescription, data: unknown): RecordData | undefined {
  const plan = matchPlan(search, description);
  if (plan.kind !== 'batched') return undefined;
  const readOnly = new Set(description.fields.filter((field) => field.readOnly).map((field) => field.name));
  if (plan.equalities.some((equality) => readOnly.has(equality.field))) return undefined;
  const values = equalityValues(plan.equalities, requestPlaceholders(data));
  return values === undefined ? undefined : Object.fromEntries(plan.equalities.map((equality, index) => [equality.field, values[index]]));
}

async function answerWith(call: WebhookCall, stored: RecordData, action: string): Promise<WebhookAnswer> {
  const { entry } = call;
  const mapping = entry.resultMapping ?? entry.readMapping;
  if (mapping === undefined) return { status: 204 };
  const body = await evaluateMapping(
    mapping,
    stored,
    { request: call.request.data, action },
    entry.resultMapping ? 'resultMapping' : 'readMapping',
  );
  return body === undefined ? { status: 204 } : { status: 200, body };
}
