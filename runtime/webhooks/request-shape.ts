/**
 * The shape of the request data an action can work with, judged before the condition and the
 * action run. A JSON body may be any JSON value; most actions read request fields — placeholders
 * of a search or filter, the page size, the mapping's input, the record to write — and a body
 * that is an array, a string, a number or null has none. Read as fields, such a body would
 * silently become "every field is null": a read answering 204 as if nothing matched, a condition
 * deciding on nothing. So it is refused with 400, naming what to send.
 *
 * - read actions and saveWithSystem: one JSON object;
 * - saveWithSync: a record or an array of records — its action names each record that is not an
 *   object (request-values.ts);
 * - startSync: any JSON (a scalar becomes the parameter `Data`; with the record store, its action
 *   asks for objects, request-values.ts).
 *
 * GET data (the query string) and form bodies are always objects; an empty body is `{}`.
 */
import type { WebhookDefinition } from '../../definitions/types.js';
import { HttpProblem } from '../errors.js';

const readsFields: ReadonlySet<WebhookDefinition['action']> = new Set([
  'readWithSync',
  'readQueryWithSync',
  'readWithSystem',
  'readQueryWithSystem',
  'saveWithSystem',
]);

/** Throws 400 when the webhook's action cannot work with `data`. */
export function checkRequestShape(definition: WebhookDefinition, data: unknown): void {
  if (!readsFields.has(definition.action) || isObject(data)) return;
  const what = describe(data);
  const hint =
    definition.action === 'saveWithSystem'
      ? `saveWithSystem writes one record: send it as one JSON object${Array.isArray(data) ? ' (several records are written by saveWithSync)' : ''}`
      : `${definition.action} takes request values from the fields of one JSON object, e.g. {"email": "ada@example.com"}`;
  throw new HttpProblem('invalid-request', `The request data of webhook ${definition.id} is ${what}; ${hint}.`, {
    errors: [{ path: '', message: `expected a JSON object, not ${what}` }],
  });
}

function isObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'missing';
  return `a ${typeof value}`;
}
