/**
 * Reads a JSON request body with a size limit. The limit is enforced while streaming (and up
 * front from Content-Length), so an oversized body is refused without being buffered whole.
 */
import type { Context } from 'koa';
import { HttpProblem } from '../errors.js';

/** Default body limit: 1 MiB. */
export const defaultBodyLimit = 1024 * 1024;

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

/** The parsed JSON body; 415 for another content type, 400 for broken JSON (without echoing the body). */
export async function readJsonBody(ctx: Context, limit: number): Promise<unknown> {
  const type = ctx.get('content-type');
  if (type && !ctx.is('application/json', 'application/*+json')) {
    throw new HttpProblem('unsupported-media-type', `Send the body as application/json, not ${type}.`);
  }
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    throw new HttpProblem('unsupported-media-type', `Content-Encoding ${encoding} is not accepted; send the body uncompressed.`);
  }
  const raw = await readRawBody(ctx, limit);
  if (raw.length === 0) throw new HttpProblem('malformed-json', 'The request needs a JSON body.');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    // The parser's own message quotes the body; only the position is passed on.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new HttpProblem('malformed-json', `The body is not valid JSON${position === undefined ? '' : ` (at character ${position})`}: check quotes, commas and brackets.`);
  }
}

function tooLarge(limit: number): HttpProblem {
  return new HttpProblem('body-too-large', `The body exceeds the limit of ${limit} bytes.`);
}
