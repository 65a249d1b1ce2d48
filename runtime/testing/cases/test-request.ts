/**
 * A webhook case's `request` as the webhook receives it: the bytes a sender would send, then read
 * by the endpoint's own reader (webhookRequestOf), so the body is judged exactly as a real call's.
 *
 * - `method`: default POST.
 * - `body`: a string is sent as written (form text, or broken JSON to test the 400); anything else
 *   is sent as JSON — or, with `content-type: application/x-www-form-urlencoded`, an object is sent
 *   as form fields. Without a body, nothing is sent (a POST without a body reads as `{}`).
 * - `headers`: names in any case. The case stands in for the sender as the console's test does
 *   (webhooks/log/console-request.ts): unless the case gives `service_webhooksecret` or
 *   `authorization` itself, the webhook's secret is sent, and unless it gives the signature's
 *   header itself, the body is signed with the webhook's `signature` settings (with a fresh
 *   timestamp where the profile signs one). So a test file holds no secret and computes no HMAC.
 *   A header the case gives wins — a wrong secret tests the 403, a wrong signature the 401 — and a
 *   header given as the empty string is not sent at all: `authorization: ""` tests a call without
 *   the secret, `x-hub-signature-256: ""` one without a signature.
 * - `query`: the query string (the data of a GET).
 */
import type { WebhookDefinition } from '../../../definitions/types.js';
import { HttpProblem } from '../../errors.js';
import { webhookRequestOf } from '../../webhooks/read-webhook-body.js';
import { signatureHeaderOf } from '../../webhooks/signatures/index.js';
import { signatureHeaders } from '../../webhooks/signatures/sign.js';
import type { WebhookRequest } from '../../webhooks/webhook-call.js';
import { secretHeaderNames } from '../../webhooks/webhook-secret.js';
import type { TestRequest } from '../test-case.js';

export interface PreparedRequest {
  request: WebhookRequest;
  /** The endpoint refused the body (broken JSON, a content type it does not read): answered after the id checks, as for a real call. */
  refusal?: HttpProblem;
}

const formType = 'application/x-www-form-urlencoded';

export async function prepareRequest(definition: WebhookDefinition, test: TestRequest): Promise<PreparedRequest> {
  const method = (test.method ?? 'POST').toUpperCase();
  const given: Record<string, string> = {};
  for (const [name, value] of Object.entries(test.headers ?? {})) given[name.toLowerCase()] = String(value);
  const query = queryOf(test.query);
  const rawBody = bodyBytes(test.body, given['content-type']);
  const headers: Record<string, string> = {
    ...(test.body === undefined || typeof test.body === 'string' ? {} : { 'content-type': 'application/json' }),
    'content-length': String(rawBody.length),
    'user-agent': 'syncline-test',
  };
  const secret = definition.secret;
  if (secret !== undefined && secret !== '' && !secretHeaderNames.some((name) => name in given)) headers.service_webhooksecret = secret;
  const signature = definition.signature;
  const signed = signature === undefined ? undefined : signatureHeaderOf(signature);
  if (signature !== undefined && !(signed !== undefined && signed in given)) Object.assign(headers, signatureHeaders(signature, rawBody));
  Object.assign(headers, given);
  for (const [name, value] of Object.entries(headers)) if (value === '') delete headers[name];
  try {
    return { request: await webhookRequestOf({ method, query, headers, rawBody }) };
  } catch (error) {
    if (!(error instanceof HttpProblem)) throw error;
    // As webhook-route.ts does: the call goes on without data, to be refused after the id checks.
    return { request: { method, data: undefined, query, headers, rawBody: Buffer.alloc(0) }, refusal: error };
  }
}

function queryOf(query: TestRequest['query']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(query ?? {})) {
    // Defined, not assigned: a parameter named `__proto__` is a parameter (read-webhook-body.ts does the same).
    Object.defineProperty(out, name, {
      value: Array.isArray(value) ? value.map(String) : String(value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function bodyBytes(body: unknown, contentType: string | undefined): Buffer {
  if (body === undefined) return Buffer.alloc(0);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === formType && body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(body)) for (const one of [value].flat()) form.append(name, String(one));
    return Buffer.from(form.toString(), 'utf8');
  }
  return Buffer.from(JSON.stringify(body), 'utf8');
}
