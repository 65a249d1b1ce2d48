/**
 * Reads a JSON request body with a size limit. The limit is enforced while streaming (and up
 * front from Content-Length), so an oversized body is refused without being buffered whole.
 *
 * JSON is parsed here for the API routes and the webhooks alike (parseJsonBody), with one limit on
 * how deeply objects and arrays nest, checked on the text before it is parsed: the parser copes
 * with any depth, but what comes after it does not — serializing a 100,000-level document for the
 * call log or a system overflows the stack, and validation and mappings recurse too.
 */
import { isUtf8 } from 'node:buffer';
import type { Context } from 'koa';
import { HttpProblem } from '../errors.js';
import { refuseNulInJson } from './refuse-nul.js';

/**
 * Deepest nesting of objects and arrays in a JSON body. Far deeper than any real payload, and
 * shallow enough that whatever the runtime keeps of a request fits every runtime database:
 * MariaDB's JSON columns refuse documents nested deeper than 31 levels, and the call log keeps the
 * data one level down (`{"data": …}`).
 */
export const maxJsonDepth = 30;

export async function readRawBody(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || NaN);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      // Stop reading; the connection is closed after the answer so the rest is not consumed.
      ctx.set('Connection', 'close');
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** The parsed JSON body of an API route; 415 for another content type, 400 for broken JSON (without echoing the body) and for NUL in its text (refuse-nul.ts). */
export async function readJsonBody(ctx: Context, limit: number): Promise<unknown> {
  const type = ctx.get('content-type');
  // A request without a body matches no media type (ctx.is answers null): say what is missing,
  // not that application/json is not application/json.
  if (ctx.get('transfer-encoding') === '' && ctx.get('content-length') === '') {
    throw new HttpProblem('malformed-json', 'The request needs a JSON body.');
  }
  if (type && !ctx.is('application/json', 'application/*+json')) {
    throw new HttpProblem('unsupported-media-type', `Send the body as application/json, not ${type}.`);
  }
  refuseOtherCharset(type);
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    throw new HttpProblem('unsupported-media-type', `Content-Encoding ${encoding} is not accepted; send the body uncompressed.`);
  }
  const raw = await readRawBody(ctx, limit);
  if (raw.length === 0) throw new HttpProblem('malformed-json', 'The request needs a JSON body.');
  const body = parseJsonBody(raw);
  refuseNulInJson(body);
  return body;
}

/**
 * 415 for a `charset` other than UTF-8 in `contentType`: JSON (and form data here) is read as
 * UTF-8, so a body in UTF-16 or Latin-1 would be read as other characters than were sent.
 */
export function refuseOtherCharset(contentType: string): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType)?.[1];
  if (charset === undefined || /^utf-?8$/i.test(charset)) return;
  throw new HttpProblem('unsupported-media-type', `The body is read as UTF-8; charset=${charset} is not accepted: send it as UTF-8.`);
}

/**
 * The parsed JSON of a body; 400 for broken JSON, for bytes that are not UTF-8 and for JSON nested
 * deeper than maxJsonDepth (none of them echoes the body).
 */
export function parseJsonBody(raw: Buffer): unknown {
  // Decoding would replace such bytes with U+FFFD, which would then be stored as the value sent.
  if (!isUtf8(raw)) {
    throw new HttpProblem(
      'malformed-json',
      `The body is not UTF-8 at byte ${firstInvalidUtf8(raw)} (sent as Latin-1 or Windows-1252?); JSON travels as UTF-8: send it so.`,
    );
  }
  const text = raw.toString('utf8');
  const tooDeep = depthExceededAt(text, maxJsonDepth);
  if (tooDeep !== undefined) {
    const message = `The body nests objects and arrays deeper than ${maxJsonDepth} levels (at character ${tooDeep}); send flatter JSON.`;
    throw new HttpProblem('invalid-request', message, { errors: [{ path: '', message }] });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    // The parser's own message quotes the body; only the position is passed on.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new HttpProblem(
      'malformed-json',
      `The body is not valid JSON${position === undefined ? '' : ` (at character ${position})`}: check quotes, commas and brackets.`,
    );
  }
}

/** Offset of the first byte of `raw` that does not decode as UTF-8 (its U+FFFD is not one the body holds). */
function firstInvalidUtf8(raw: Buffer): number {
  const text = raw.toString('utf8');
  for (let index = text.indexOf('\uFFFD'); index !== -1; index = text.indexOf('\uFFFD', index + 1)) {
    const offset = Buffer.byteLength(text.slice(0, index));
    if (raw[offset] !== 0xef || raw[offset + 1] !== 0xbf || raw[offset + 2] !== 0xbd) return offset;
  }
  return 0;
}

/** Where an object or array opens deeper than `max` levels, outside strings; undefined when none does. One pass, no recursion. */
function depthExceededAt(text: string, max: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === 0x5c)
        at += 1; // backslash: the escaped character cannot end the string
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      depth += 1;
      if (depth > max) return at;
    } else if (code === 0x7d || code === 0x5d) depth -= 1;
  }
  return undefined;
}

function tooLarge(limit: number): HttpProblem {
  return new HttpProblem('body-too-large', `The body exceeds the limit of ${limit} bytes.`);
}
