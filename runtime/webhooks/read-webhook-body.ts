/**
 * Turns an HTTP request into a WebhookRequest. The content type decides how the body is read
 * (the seed: "detected automatically"):
 *
 * - GET: the query string is the data;
 * - POST `application/json` (or `+json`, or no Content-Type at all): the parsed JSON; broken JSON, or
 *   JSON nested deeper than the API routes accept (read-body.ts), → 400;
 * - POST `application/x-www-form-urlencoded` and `multipart/form-data` (fields only): the fields as an
 *   object, a repeated field becoming an array (names are not split into nested objects, so form data
 *   is never deeper than that); a file part → 415;
 * - anything else → 415 naming the accepted types, as a `charset` other than UTF-8 (JSON and form
 *   data are read as UTF-8); a body over the limit → 413; JSON that is not UTF-8 → 400.
 *
 * An empty POST body is an empty object: senders "ping" a webhook that way. The raw body is kept
 * as received, since signatures are computed over exactly those bytes.
 */
import type { Context } from 'koa';
import { HttpProblem } from '../errors.js';
import { boundaryOf } from '../../connectors/odata/batch/multipart-batch.js';
import { isUtf8 } from 'node:buffer';
import { firstInvalidUtf8, parseJsonBody, readRawBody, refuseOtherCharset } from '../request/read-body.js';
import { brokenEscape } from '../request/refuse-malformed-path.js';
import type { WebhookRequest } from './webhook-call.js';

export const acceptedTypes = 'application/json, application/x-www-form-urlencoded or multipart/form-data (fields without files)';

type Fields = Record<string, string | string[]>;

export async function readWebhookRequest(ctx: Context, limit: number): Promise<WebhookRequest> {
  const query = formFields(ctx.querystring, 'The query string');
  const headers = { ...ctx.headers };
  // Refused before the body is read: a compressed body is not worth reading up to the limit.
  refuseContentEncoding(headers['content-encoding']);
  const rawBody = await readRawBody(ctx, limit);
  return webhookRequestOf({ method: ctx.method, query, headers, rawBody });
}

/** A request as it arrived, before its body is read as data: what `webhookRequestOf` judges. */
export interface ReceivedRequest {
  method: string;
  query: Readonly<Record<string, string | string[]>>;
  /** Lower-case names. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  rawBody: Buffer;
}

/**
 * The WebhookRequest of a request received whole: its data read from the body by its content type
 * (or from the query on GET), or the HttpProblem the endpoint answers. The endpoint calls it with
 * what it read from the socket; `syncline test` with a request written in a test case, so that a
 * test call's body is judged exactly as a real one.
 */
export async function webhookRequestOf(received: ReceivedRequest): Promise<WebhookRequest> {
  const { query, headers, rawBody } = received;
  refuseContentEncoding(headers['content-encoding']);
  const method = received.method.toUpperCase();
  if (method !== 'POST') return { method, data: query, query, headers, rawBody };
  const contentType = headers['content-type'];
  return {
    method,
    data: await parseBody(Array.isArray(contentType) ? contentType.join(', ') : (contentType ?? ''), rawBody),
    query,
    headers,
    rawBody,
  };
}

function refuseContentEncoding(header: string | string[] | undefined): void {
  const encoding = (Array.isArray(header) ? header.join(', ') : (header ?? '')).trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    throw new HttpProblem('unsupported-media-type', `Content-Encoding ${encoding} is not accepted; send the body uncompressed.`);
  }
}

async function parseBody(contentType: string, raw: Buffer): Promise<unknown> {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  // Every body is read as UTF-8, multipart parts too (undici reads each field so).
  refuseOtherCharset(contentType);
  if (type === '' || type === 'application/json' || /^application\/[^/]+\+json$/.test(type))
    return raw.length === 0 ? {} : parseJsonBody(raw, 'as-text');
  if (type === 'application/x-www-form-urlencoded') {
    if (!isUtf8(raw)) {
      throw new HttpProblem(
        'invalid-request',
        `The form body is not UTF-8 at byte ${firstInvalidUtf8(raw)} (sent as Latin-1 or Windows-1252?); form data is read as UTF-8: send it so.`,
      );
    }
    return formFields(raw.toString('utf8'), 'The form body');
  }
  if (type === 'multipart/form-data') return multipartFields(contentType, raw);
  throw new HttpProblem('unsupported-media-type', `A webhook accepts ${acceptedTypes}, not ${type}.`);
}

/** Multipart parsing is the Fetch API's (undici), not written here. */
async function multipartFields(contentType: string, raw: Buffer): Promise<Fields> {
  refuseManyParts(contentType, raw);
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new HttpProblem('invalid-request', 'The multipart/form-data body cannot be read: check its boundary and parts.');
  }
  const entries: Array<[string, string]> = [];
  for (const [name, value] of form.entries()) {
    if (typeof value !== 'string')
      throw new HttpProblem('unsupported-media-type', `Field ${name} is a file; a webhook accepts form fields only.`);
    entries.push([name, value]);
  }
  // Fields only, so every byte is field text: bytes that are no UTF-8 became U+FFFD in the values.
  if (!isUtf8(raw)) {
    throw new HttpProblem(
      'invalid-request',
      `The multipart/form-data body is not UTF-8 at byte ${firstInvalidUtf8(raw)} (a field sent as Latin-1 or Windows-1252?); form fields are read as UTF-8: send them so.`,
    );
  }
  return fieldsOf(entries);
}

/** Most fields a query string or form body may have. */
export const maxFormFields = 1000;

/**
 * Parts are counted by their delimiters before undici parses any: 20,000 one-letter fields, about
 * a megabyte, took it a quarter of a second of the event loop to read. A body whose boundary
 * cannot be found is left to undici to refuse.
 */
function refuseManyParts(contentType: string, raw: Buffer): void {
  const boundary = boundaryOf(contentType);
  if (boundary === undefined) return;
  const delimiter = Buffer.from(`--${boundary}`);
  // The closing delimiter is one more than the parts.
  let delimiters = 0;
  for (let at = raw.indexOf(delimiter); at !== -1 && delimiters <= maxFormFields + 1; at = raw.indexOf(delimiter, at + delimiter.length)) {
    delimiters += 1;
  }
  if (delimiters > maxFormFields + 1) {
    throw new HttpProblem(
      'invalid-request',
      `The multipart/form-data body has more than ${maxFormFields} parts; a webhook reads at most ${maxFormFields} fields.`,
    );
  }
}

/**
 * The fields of `application/x-www-form-urlencoded` text (a body, a query string). An escape that
 * is no UTF-8 (`%E0%A4`, `%FF`) is refused, naming it: URLSearchParams would make it U+FFFD, and
 * the sync would store that character as the value sent. A `%` that starts no escape (`100%`) is
 * kept as the character, as URLSearchParams keeps it.
 */
function formFields(text: string, what: string): Fields {
  // Counted before anything is decoded: 120,000 names in a body under the size limit took the
  // event loop for most of a second to read into fields no webhook declares.
  let fields = 1;
  for (let at = text.indexOf('&'); at !== -1 && fields <= maxFormFields; at = text.indexOf('&', at + 1)) fields += 1;
  if (fields > maxFormFields) {
    throw new HttpProblem('invalid-request', `${what} has more than ${maxFormFields} fields; a webhook reads at most ${maxFormFields}.`);
  }
  const broken = brokenEscape(text, true);
  if (broken !== undefined) {
    throw new HttpProblem(
      'invalid-request',
      `${what} holds '${broken}', which is not percent-encoded UTF-8; encode each byte of a value as %XX of its UTF-8 encoding.`,
    );
  }
  return fieldsOf(new URLSearchParams(text));
}

/**
 * Name → value, a repeated name → its values in order. Properties are defined, not assigned, so a
 * field named `__proto__` is an ordinary property and never replaces the object's prototype.
 */
function fieldsOf(entries: Iterable<[string, string]>): Fields {
  const out: Fields = {};
  for (const [name, value] of entries) {
    const before = Object.hasOwn(out, name) ? out[name] : undefined;
    // Appended in place: a body is read before its caller is known, so one holding a name
    // 100,000 times must cost 100,000 steps, not their square (it held the event loop for 77 s).
    if (Array.isArray(before)) before.push(value);
    else
      Object.defineProperty(out, name, {
        value: before === undefined ? value : [before, value],
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}
