/**
 * What one answer of the API holds for the connector: the records of a list answer (the object's
 * `records` expression, or the answer itself when it is an array), the total (a header or an
 * expression), the next cursor and the next page's URL; the record of a get answer; the key of a
 * create answer. The JSONata expressions were compiled when the definitions loaded.
 *
 * An answer that does not have what the definition says it has is the definition's mismatch with
 * the API ('definition-mismatch', an operator's fix), said in our words: the answer itself is not
 * repeated, since it is the system's, not ours to pass on.
 */
import type { Expression as Jsonata } from 'jsonata';
import { evaluateMappingNow, NOT_NOW } from '../../definitions/mapping/compile-mapping.js';
import { ConnectorError } from '../connector-error.js';
import { linkTarget, type WebResponse } from '../web/index.js';
import type { HttpObject, Paging } from './http-object.js';

/** The request an answer came from, for messages: `GET /customers`. */
export interface AnswerContext {
  systemId: string;
  object: HttpObject;
  request: string;
}

export function mismatch(context: AnswerContext, what: string, cause?: unknown, details: Record<string, unknown> = {}): ConnectorError {
  return new ConnectorError(
    'definition-mismatch',
    `system '${context.systemId}' answered ${context.request} ${what}; check objects.${context.object.name} of the System definition '${context.systemId}' against the API`,
    { cause, details: { system: context.systemId, object: context.object.name, ...details } },
  );
}

/** `expression`'s value over `input`; a failure of the expression is the definition's mismatch. */
export async function evaluate(expression: Jsonata, input: unknown, context: AnswerContext, setting: string): Promise<unknown> {
  const now = evaluateMappingNow(expression, input);
  if (now !== NOT_NOW) return now;
  try {
    return await expression.evaluate(input);
  } catch (error) {
    throw mismatch(context, `with something objects.${context.object.name}.${setting} could not be evaluated over`, error);
  }
}

/** JSONata's sequences are arrays with a flag; a record list is a plain array of plain objects. */
function asRecords(value: unknown, context: AnswerContext, where: string): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? [...value] : [value];
  for (const item of list) {
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw mismatch(context, `with ${where} holding something that is not a record (a JSON object)`);
  }
  return list as Record<string, unknown>[];
}

export interface ListPage {
  records: Record<string, unknown>[];
  total: number | undefined;
  cursor: string | undefined;
  next: string | undefined;
}

function wholeNumber(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) && number >= 0 ? number : undefined;
}

/** The total an answer tells, when the object says where it is and it is there. */
export async function answerTotal(
  object: HttpObject,
  response: WebResponse,
  body: unknown,
  context: AnswerContext,
): Promise<number | undefined> {
  const { total } = object;
  if (total === undefined) return undefined;
  if ('header' in total) return wholeNumber(response.headers.get(total.header));
  return wholeNumber(await evaluate(total.expression, body, context, 'total.expression'));
}

async function nextCursor(paging: Paging, body: unknown, context: AnswerContext): Promise<string | undefined> {
  if (paging.style !== 'cursor') return undefined;
  const cursor = await evaluate(paging.cursor, body, context, 'paging.cursor');
  if (cursor === undefined || cursor === null || cursor === '') return undefined;
  if (typeof cursor === 'string' || (typeof cursor === 'number' && Number.isFinite(cursor))) return String(cursor);
  throw mismatch(context, 'with a next cursor that is neither text nor a number');
}

async function nextLink(paging: Paging, response: WebResponse, body: unknown, context: AnswerContext): Promise<string | undefined> {
  if (paging.style !== 'link') return undefined;
  if (paging.next === undefined) return linkTarget(response.headers.get('link'), 'next', response.url);
  const next = await evaluate(paging.next, body, context, 'paging.next');
  if (next === undefined || next === null || next === '') return undefined;
  if (typeof next !== 'string') throw mismatch(context, 'with a next link that is not text');
  try {
    return new URL(next, response.url).href;
  } catch (error) {
    throw mismatch(context, 'with a next link that is no URL', error);
  }
}

/** A list answer (2xx) read as the object's definition says. */
export async function listPage(object: HttpObject, response: WebResponse, context: AnswerContext): Promise<ListPage> {
  const body = response.status === 204 ? [] : response.json();
  let records: Record<string, unknown>[];
  if (object.records !== undefined) {
    records = asRecords(await evaluate(object.records, body, context, 'records'), context, `objects.${object.name}.records`);
  } else if (Array.isArray(body)) {
    records = asRecords(body, context, 'its list');
  } else {
    throw mismatch(
      context,
      `with a JSON ${body === null ? 'null' : typeof body}, not a list; set objects.${object.name}.records to where its records are (e.g. data)`,
    );
  }
  return {
    records,
    total: await answerTotal(object, response, body, context),
    cursor: await nextCursor(object.paging, body, context),
    next: await nextLink(object.paging, response, body, context),
  };
}

/** The record of a get answer (2xx): the answer, or what `get.record` gives; undefined for none. */
export async function getRecord(
  object: HttpObject,
  response: WebResponse,
  context: AnswerContext,
): Promise<Record<string, unknown> | undefined> {
  const body = response.status === 204 ? null : response.json();
  const found = object.get?.record === undefined ? body : await evaluate(object.get.record, body, context, 'get.record');
  const records = asRecords(found, context, 'the record');
  if (records.length > 1) throw mismatch(context, 'with several records where one was asked for');
  return records[0];
}

/** What a create answer (2xx) holds of the new record: the answer, or what `create.key` gives; {} when nothing. */
export async function createdRecord(object: HttpObject, response: WebResponse, context: AnswerContext): Promise<Record<string, unknown>> {
  const body = response.status === 204 || response.text().trim() === '' ? null : response.json();
  const found = object.create?.key === undefined ? body : await evaluate(object.create.key, body, context, 'create.key');
  return typeof found === 'object' && found !== null && !Array.isArray(found) ? (found as Record<string, unknown>) : {};
}
