/**
 * Reads a JSON request body with a size limit. The limit is enforced while streaming (and up
 * front from Content-Length), so an oversized body is refused without being buffered whole.
 *
 * JSON is parsed here for the API routes and the webhooks alike (parseJsonBody), with one limit on
 * how deeply objects and arrays nest, checked on the text once it parsed: the parser copes with
 * any depth, but what comes after it does not — serializing a 100,000-level document for the call
 * log or a system overflows the stack, and validation and mappings recurse too. The same pass
 * finds what the parser would take without a word (json-text.ts): a key given twice, and whole
 * numbers past 2^53.
 */
import { isUtf8 } from 'node:buffer';
import type { Context } from 'koa';
import { HttpProblem } from '../errors.js';
import { quoteSpans } from '../../connectors/records/exact-json.js';
import { firstTextWhere, scanJsonText } from './json-text.js';
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
 * How a body's whole numbers past 2^53 are taken: an API request is refused (400, naming the
 * value: send it as a string of its digits), since its fields are ours to ask for; a webhook's are
 * kept exactly, as the text of their digits, since its sender's payload is not — a sender that
 * also gives a 64-bit id as a number (as many do, beside the same id as text) is still heard, and
 * the number reaches an Integer or String field with its own digits, never another record's.
 */
export type WideIntegers = 'refuse' | 'as-text';

/** A UTF-16 surrogate that is not part of a pair. */
const loneSurrogate = /\p{Cs}/u;

/**
 * The parsed JSON of a body; 400 for broken JSON, for bytes that are not UTF-8, for JSON nested
 * deeper than maxJsonDepth, for a key given twice in one object (JSON.parse would keep the last
 * copy without a word) and for a lone surrogate escape; whole numbers past 2^53 as `wideIntegers`
 * says. No message echoes the body.
 */
export function parseJsonBody(raw: Buffer, wideIntegers: WideIntegers = 'refuse'): unknown {
  // Decoding would replace such bytes with U+FFFD, which would then be stored as the value sent.
  if (!isUtf8(raw)) {
    throw new HttpProblem(
      'malformed-json',
      `The body is not UTF-8 at byte ${firstInvalidUtf8(raw)} (sent as Latin-1 or Windows-1252?); JSON travels as UTF-8: send it so.`,
    );
  }
  // A byte order mark, which some Windows tools write: RFC 8259 (8.1) lets a parser ignore it.
  const decoded = raw.toString('utf8');
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // The parser's own message quotes the body; only the position is passed on.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new HttpProblem(
      'malformed-json',
      `The body is not valid JSON${position === undefined ? '' : ` (at character ${position})`}: check quotes, commas and brackets.`,
    );
  }
  const found = scanJsonText(text, maxJsonDepth);
  if (found.tooDeepAt !== undefined) {
    const message = `The body nests objects and arrays deeper than ${maxJsonDepth} levels (at character ${found.tooDeepAt}); send flatter JSON.`;
    throw new HttpProblem('invalid-request', message, { errors: [{ path: '', message }] });
  }
  if (found.duplicateKey !== undefined) {
    const { path, key } = found.duplicateKey;
    const message = `The key ${JSON.stringify(key)} is given twice in one object (at ${path}); JSON leaves which copy counts to the reader: send it once.`;
    throw new HttpProblem('invalid-request', message, { errors: [{ path, message }] });
  }
  // An escaped half of a surrogate pair without its other half is no character: a database stores U+FFFD for it.
  const lone = text.includes('\\u') ? firstTextWhere(parsed, (value) => loneSurrogate.test(value)) : undefined;
  if (lone !== undefined) {
    const message = `The text at ${lone || 'the body'} holds half of a surrogate pair (an escape \\uD800–\\uDFFF without its other half), which is no character and would be stored as U+FFFD; send the character itself, or both halves.`;
    throw new HttpProblem('invalid-request', message, { errors: [{ path: lone, message }] });
  }
  const [wide] = found.wideIntegers;
  const [outside] = found.outOfRange;
  if (wide === undefined && outside === undefined) return parsed;
  if (wideIntegers === 'as-text') {
    const spans = [...found.wideIntegers, ...found.outOfRange].sort((a, b) => a.start - b.start);
    return JSON.parse(quoteSpans(text, spans));
  }
  if (outside !== undefined && (wide === undefined || outside.start < wide.start)) {
    const number = text.slice(outside.start, outside.end);
    const message = `The number ${number.length > 40 ? `${number.slice(0, 40)}…` : number} (at ${outside.path || 'the body'}) is past the range of a JSON number as read here, which would make it ${Number(number)}; send it as a string of its digits.`;
    throw new HttpProblem('invalid-request', message, { errors: [{ path: outside.path, message }] });
  }
  if (wide === undefined) return parsed;
  const digits = text.slice(wide.start, wide.end);
  const message = `The number ${digits} (at ${wide.path || 'the body'}) is past 2^53, where a JSON number is read as the nearest integer a double holds (this one as ${Number(digits)}), so neighbouring ids read alike; send it as a string of its exact digits.`;
  throw new HttpProblem('invalid-request', message, { errors: [{ path: wide.path, message }] });
}

/** Offset of the first byte of `raw` that does not decode as UTF-8 (its U+FFFD is not one the body holds). */
export function firstInvalidUtf8(raw: Buffer): number {
  const text = raw.toString('utf8');
  for (let index = text.indexOf('\uFFFD'); index !== -1; index = text.indexOf('\uFFFD', index + 1)) {
    const offset = Buffer.byteLength(text.slice(0, index));
    if (raw[offset] !== 0xef || raw[offset + 1] !== 0xbf || raw[offset + 2] !== 0xbd) return offset;
  }
  return 0;
}

function tooLarge(limit: number): HttpProblem {
  return new HttpProblem('body-too-large', `The body exceeds the limit of ${limit} bytes.`);
}
