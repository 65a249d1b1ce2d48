/**
 * What the actions take from the incoming data: placeholder values (always bound by the connector,
 * never spliced into a statement), ActionParams for a sync, and the records of a body.
 *
 * ActionParams from request data (startSync, and `$params` / `#params.Name#` of the sync in the
 * sync-based actions): each top-level property of a JSON object becomes {Name, Value}, the value as
 * text — a string as it is, a number or boolean as JSON writes it, an object or array as its JSON
 * text; null and absent properties are left out (a missing parameter already reads as null). Data
 * that is not an object (a scalar) becomes one parameter named `Data` holding its JSON text.
 */
import type { PlaceholderValues, RecordData } from '../../../connectors/connection.js';
import { HttpProblem, type ProblemDetail } from '../../errors.js';
import { resolvePath } from '../../../definitions/expression/index.js';
import { valueLimits, type ActionParam } from '../../queue/queue-item.js';

/** Most records one call may carry (an array body): each is stored, queued or written. */
export const maxRecordsPerCall = 1000;

/** `#a.b#` → the request's property a.b (own properties only; missing is null). */
export function requestPlaceholders(data: unknown): PlaceholderValues {
  return (path) => resolvePath(data, path);
}

export function isPlainRecord(value: unknown): value is RecordData {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function refuse(errors: ProblemDetail[]): never {
  throw new HttpProblem('invalid-request', errors.map((error) => error.message).join(' '), { errors });
}

/** The request data as ActionParams (see the file comment), within the queue's limits. */
export function actionParamsOf(data: unknown): ActionParam[] {
  const entries: Array<[string, unknown]> = isPlainRecord(data)
    ? Object.entries(data)
    : data === undefined || data === null
      ? []
      : [['Data', data]];
  const params: ActionParam[] = [];
  for (const [name, value] of entries) {
    if (value === null || value === undefined) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text.length > valueLimits.actionParamValue) {
      refuse([
        {
          path: `/${name}`,
          message: `${name} has ${text.length} characters as a parameter; at most ${valueLimits.actionParamValue} are passed to a sync (enable recordStore for larger data).`,
        },
      ]);
    }
    params.push({ Name: name, Value: text });
  }
  if (params.length > valueLimits.actionParams) {
    refuse([
      {
        path: '',
        message: `The request has ${params.length} properties; at most ${valueLimits.actionParams} are passed to a sync as parameters (enable recordStore for larger data).`,
      },
    ]);
  }
  return params;
}

/** One record (an object) or several (an array of objects), each a JSON object. */
export function recordsOf(data: unknown): RecordData[] {
  const records = Array.isArray(data) ? data : [data];
  if (records.length > maxRecordsPerCall) {
    refuse([{ path: '', message: `The request holds ${records.length} records; at most ${maxRecordsPerCall} are accepted in one call.` }]);
  }
  const errors: ProblemDetail[] = [];
  for (const [index, record] of records.entries()) {
    if (!isPlainRecord(record)) {
      const path = Array.isArray(data) ? `/${index}` : '';
      errors.push({
        path,
        message: `${Array.isArray(data) ? `Record ${index + 1}` : 'The request data'} must be a JSON object, not ${describe(record)}.`,
      });
    }
  }
  if (errors.length > 0) refuse(errors.slice(0, 20));
  return records as RecordData[];
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
