/**
 * A request path whose percent-encoding does not decode — a `%` not followed by two hex digits, or
 * escapes that are no UTF-8 (`%E0%A4`, `%FF`) — is refused with a 400 naming the broken escape.
 * The router would otherwise keep such a segment as it came (it decodes parameters "safely") and
 * answer 404 for an object or item called `%E0%A4`, which sends the caller looking for something
 * that is missing when what is wrong is how the URL was built.
 */
import type { Middleware } from 'koa';
import { HttpProblem } from '../errors.js';

/**
 * The first `%` escape (or run of escapes) of `path` that does not decode, or undefined. With
 * `bareIsText` (form data, as URLSearchParams reads it) a `%` that starts no escape (`100%`) is the
 * character itself, and only escapes that are no UTF-8 (`%E0%A4`, `%FF`) count.
 */
export function brokenEscape(path: string, bareIsText = false): string | undefined {
  if (!path.includes('%')) return undefined;
  try {
    decodeURIComponent(path);
    return undefined;
  } catch {
    // A run of escapes is one character or none: decode run by run to name the broken one.
    for (const run of path.match(bareIsText ? /(?:%[0-9A-Fa-f]{2})+/g : /(?:%[0-9A-Fa-f]{2})+|%.{0,2}/gs) ?? []) {
      try {
        decodeURIComponent(run);
      } catch {
        return run;
      }
    }
    return bareIsText ? undefined : path;
  }
}

export const refuseMalformedPath: Middleware = async (ctx, next) => {
  const broken = brokenEscape(ctx.path);
  if (broken !== undefined) {
    const message =
      `The request path holds '${broken}', which is not percent-encoded UTF-8; ` +
      "encode each byte of the name as %XX of its UTF-8 encoding (encodeURIComponent), and a literal '%' as %25.";
    throw new HttpProblem('invalid-request', message, { errors: [{ path: 'path', message }] });
  }
  await next();
};
