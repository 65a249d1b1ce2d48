/**
 * The JSON text of an answer, written while the problem edge can still turn a failure into a
 * problem. Koa writes an object body itself once every middleware has returned, where a value
 * JSON.stringify cannot write (a Json value of a record nested thousands of levels deep, which
 * overflows its recursion) escapes every handler: the client got a bare 500 the request log
 * recorded as 200.
 */
import { Stream } from 'node:stream';
import { jsonValueProblem } from '../../connectors/records/json-value-problem.js';
import { HttpProblem } from '../errors.js';

/** Whether Koa would write `body` as JSON (not text, bytes or a stream). */
export function isJsonBody(body: unknown): body is object {
  return typeof body === 'object' && body !== null && !Buffer.isBuffer(body) && !(body instanceof Stream);
}

/** `value` as JSON text; a problem naming what JSON text cannot carry, and where, when it holds such a thing. */
export function answerJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    const problem = jsonValueProblem(value) ?? (error instanceof Error ? error.message : String(error));
    throw new HttpProblem(
      'unanswerable-value',
      `The answer cannot be written as JSON: ${problem}. Correct the value in the system it was read from.`,
      { cause: error },
    );
  }
}
