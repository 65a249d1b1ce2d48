/**
 * The contract between the webhook endpoint (route, body reading, security, condition, redirect,
 * idempotency, rate limit, CORS — webhook-route.ts), the seven actions (actions/), and the call
 * log (log/). The endpoint builds a `WebhookCall`, runs the action the webhook names, and records
 * the call with its ticker messages; an action only reads the call and answers.
 */
import type { WebhookEntry, Snapshot } from '../../definitions/snapshot.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import type { ConnectionProvider } from '../../connectors/connection-pool.js';
import type { Logger } from '../log.js';
import type { Ticker } from './ticker.js';

export interface WebhookRequest {
  method: string;
  /**
   * The incoming data the action works on: the JSON body, the form fields as an object (a
   * repeated field becomes an array), or on GET the query string as an object.
   */
  data: unknown;
  /** The query string, also on POST (a repeated name becomes an array). */
  query: Readonly<Record<string, string | string[]>>;
  /** Lower-case names. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body exactly as received (signatures are computed over it); empty on GET. */
  rawBody: Buffer;
}

export interface WebhookCall {
  entry: WebhookEntry;
  /** The snapshot current when the call arrived; the whole call uses it. */
  snapshot: Snapshot;
  connections: ConnectionProvider;
  db: RuntimeDatabase;
  log: Logger;
  request: WebhookRequest;
  ticker: Ticker;
  /** Aborted when the caller went away. */
  signal?: AbortSignal;
  /** The HTTP request's id (http/request-id.ts), for what the call starts; the caller's word, only logged. */
  requestId?: string;
}

/** What an action answers; the endpoint adds a redirect, CORS and log headers around it. */
export interface WebhookAnswer {
  /** 200 with content, 204 without (no `body`). */
  status: 200 | 204;
  body?: unknown;
  /** The queue item the call created (start sync), for the log and the answer. */
  queueItemId?: string;
}

/**
 * Runs one action. Refusals are thrown as HttpProblem (runtime/errors.ts): the endpoint turns them
 * into problem+json and logs them with the ticker.
 */
export type WebhookActionHandler = (call: WebhookCall) => Promise<WebhookAnswer>;
