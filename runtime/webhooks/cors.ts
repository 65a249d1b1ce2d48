/**
 * CORS for webhooks a browser calls (`cors.origins`): a preflight (OPTIONS) of an allowed origin
 * gets the methods and the request headers it asked for; every answer to an allowed origin
 * carries Access-Control-Allow-Origin. Other origins get no CORS headers, so the browser blocks
 * the call; nothing else changes (servers and curl do not ask).
 */
import type { WebhookDefinition } from '../../definitions/types.js';
import type { WebhookRequest } from './webhook-call.js';
import { first } from './webhook-secret.js';

type Cors = WebhookDefinition['cors'];

/** How long a browser may cache a preflight answer, in seconds. */
const preflightMaxAge = 600;

/** Headers for an answer to a call from an allowed origin; none otherwise. */
export function corsHeaders(cors: Cors, request: WebhookRequest): Record<string, string> {
  const origin = first(request.headers.origin);
  if (!cors || origin === undefined) return {};
  const any = cors.origins.includes('*');
  if (!any && !cors.origins.includes(origin)) return { Vary: 'Origin' };
  return {
    'Access-Control-Allow-Origin': any ? '*' : origin,
    // A cache between browser and server must not hand one origin's answer to another.
    ...(any ? {} : { Vary: 'Origin' }),
    'Access-Control-Expose-Headers': 'Location, Retry-After, Idempotent-Replayed',
  };
}

/** The preflight answer's headers (204): empty when the origin is not allowed. */
export function preflightHeaders(cors: Cors, request: WebhookRequest): Record<string, string> {
  const base = corsHeaders(cors, request);
  if (base['Access-Control-Allow-Origin'] === undefined) return base;
  const asked = first(request.headers['access-control-request-headers']);
  return {
    ...base,
    'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    // Only header names are echoed: letters, digits and dashes, as the Fetch standard allows.
    ...(asked && /^[A-Za-z0-9_\-, ]*$/.test(asked) ? { 'Access-Control-Allow-Headers': asked } : {}),
    'Access-Control-Max-Age': String(preflightMaxAge),
  };
}
