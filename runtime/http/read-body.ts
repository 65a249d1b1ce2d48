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

/** The parsed JSON body; 415 for another content type, 400 with the position for broken JSON. */
export async function readJsonBody(ctx: Context, limit: number): Promise<unknown> {
  const type = ctx.get('content-type');
  if (type && !ctx.is('application/json', 'application/*+json')) {
    throw new HttpProblem('unsupported-media-type', `Send the body as application/json, not ${type}.`);
  }
  const raw = await readRawBody(ctx, limit);
  if (raw.length === 0) throw new HttpProblem('malformed-json', 'The request needs a JSON body.');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new HttpProblem('malformed-json', `The body is not valid JSON: ${(error as Error).message}.`);
  }
}

function tooLarge(limit: number): HttpProblem {
  return new HttpProblem('body-too-large', `The body exceeds the limit of ${limit} bytes.`);
}
