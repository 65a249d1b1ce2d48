/**
 * NUL (U+0000) in the text of an API request is refused at the edge, once, with a 400 naming the
 * field — before any of it reaches the runtime database, whose PostgreSQL text columns cannot
 * hold NUL at all (a source id, a WhereClause or a log entry id with NUL failed there with 500),
 * or a system, where NUL ends strings in some drivers and is refused by others. No id, filter or
 * parameter of the API has a use for it. The three ways text comes in:
 *
 * - path parameters (`path.sourceId`): checked on every /api route that has them, by name;
 * - query parameters (`query.cursor`);
 * - JSON bodies (`/WhereClause`, `/ActionParams/0/Value`, property names too): readJsonBody.
 *
 * Webhooks are not covered: what a sender posts is data, stored as JSON, in which NUL is the
 * escape `\u0000` that every engine keeps, and passed on to the webhook's action as it came.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { HttpProblem } from '../errors.js';
import { firstTextWhere } from './json-text.js';

const nul = '\u0000';

function refused(path: string, name: string): HttpProblem {
  const message = `${name} contains a NUL character (\\u0000), which no text here may hold; remove it.`;
  return new HttpProblem('invalid-request', message, { errors: [{ path, message }] });
}

/** Checks the path parameters of every route of `router` (call it after the routes are registered). */
export function refuseNulInPathParameters(router: Router): void {
  const names = new Set(router.stack.flatMap((layer) => layer.paramNames.map((key) => String(key.name))));
  for (const name of names) {
    router.param(name, (value, _ctx, next) => {
      if (typeof value === 'string' && value.includes(nul)) throw refused(`path.${name}`, `The path parameter ${name}`);
      return next();
    });
  }
}

/** Refuses a query parameter holding NUL. */
export const refuseNulInQuery: Middleware = async (ctx, next) => {
  for (const [name, value] of Object.entries(ctx.query)) {
    if (name.includes(nul) || [value ?? []].flat().some((text) => text.includes(nul)))
      throw refused(`query.${name}`, `The query parameter ${name}`);
  }
  await next();
};

/** Refuses a parsed JSON body holding NUL in any string or property name, naming it by JSON pointer. */
export function refuseNulInJson(value: unknown): void {
  const found = firstTextWhere(value, (text) => text.includes(nul));
  if (found !== undefined) throw refused(found, found === '' ? 'The body' : `The value at ${found}`);
}

/** The JSON pointer of the first string or property name holding NUL. Bodies nest at most maxJsonDepth levels (read-body.ts), so recursion is safe. */
