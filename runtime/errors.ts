/**
 * Every error the HTTP interface answers with, in one catalogue: a stable code, the status, a
 * title. The Koa edge (http/problem-middleware.ts) turns an HttpProblem into an RFC 9457
 * `application/problem+json` body; anything else becomes a 500 that reveals nothing — except a
 * failure of the runtime database itself, which is a 503 with Retry-After naming it.
 */
import { ConnectorError, type ConnectorErrorCode } from '../connectors/connector-error.js';
import { retryAfterSeconds, runtimeDatabaseFailure } from './database/database-failure.js';

export interface ProblemDetail {
  /** Where in the request: a JSON pointer into the body, or `query.name`, `header.name`, `path.name`. */
  path: string;
  message: string;
}

const catalogue = {
  'malformed-json': { status: 400, title: 'Malformed JSON' },
  'invalid-request': { status: 400, title: 'Invalid request' },
  'unknown-read-parameter': { status: 400, title: 'Unknown read parameter' },
  'unknown-field': { status: 400, title: 'Unknown field' },
  'invalid-value': { status: 400, title: 'Invalid value' },
  'group-needs-full-write': { status: 400, title: 'Typed group fields need the full write' },
  unauthenticated: { status: 401, title: 'Authentication required' },
  'bad-signature': { status: 401, title: 'Signature missing or wrong' },
  'missing-scope': { status: 403, title: 'Scope missing' },
  'not-allowed': { status: 403, title: 'Not on the allow-list' },
  'read-only': { status: 403, title: 'Read-only' },
  'webhook-forbidden': { status: 403, title: 'Webhook secret missing or wrong' },
  'unknown-route': { status: 404, title: 'Not found' },
  'unknown-system': { status: 404, title: 'Unknown system' },
  'unknown-object': { status: 404, title: 'Unknown object' },
  'record-not-found': { status: 404, title: 'Record not found' },
  'unknown-process': { status: 404, title: 'Unknown sync or flow' },
  'unknown-queue-item': { status: 404, title: 'Unknown queue item' },
  'unknown-webhook': { status: 404, title: 'Unknown webhook' },
  'unknown-log-entry': { status: 404, title: 'Unknown log entry' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'request-timeout': { status: 408, title: 'Request not received in time' },
  rejected: { status: 409, title: 'Rejected by the system' },
  'several-matches': { status: 409, title: 'Several records match' },
  'idempotency-conflict': { status: 409, title: 'A call with this idempotency key is still running' },
  gone: { status: 410, title: 'Gone' },
  'not-replayable': { status: 409, title: 'Log entry cannot be replayed' },
  'wrong-queue-status': { status: 409, title: 'Queue item not in the status this needs' },
  'body-too-large': { status: 413, title: 'Request body too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'headers-too-large': { status: 431, title: 'Request headers too large' },
  unsupported: { status: 422, title: 'Not supported by the connector' },
  'mapping-failed': { status: 422, title: 'Mapping failed' },
  'action-not-possible': { status: 422, title: 'The webhook action cannot run as defined' },
  'records-failed': { status: 422, title: 'No record could be saved' },
  'result-too-large': { status: 422, title: 'Query result over the limit' },
  'unanswerable-value': { status: 422, title: 'A value the answer cannot carry as JSON' },
  'sync-failed': { status: 502, title: 'The sync could not run' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  internal: { status: 500, title: 'Internal error' },
  'definition-mismatch': { status: 500, title: 'Definition does not match the system' },
  unavailable: { status: 503, title: 'System unavailable' },
  'database-unavailable': { status: 503, title: 'Runtime database unavailable' },
  busy: { status: 503, title: 'Too many queries at once' },
  'too-many-streams': { status: 503, title: 'Too many event streams' },
  'statement-timeout': { status: 504, title: 'Statement timeout' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof catalogue;

/** An error with a catalogue code: safe to show to the caller as it is. */
export class HttpProblem extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly extra: { errors?: ProblemDetail[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(detail, { cause: extra.cause });
    this.name = 'HttpProblem';
    this.status = catalogue[code].status;
    this.title = catalogue[code].title;
  }

  /**
   * The RFC 9457 body. `instance` is the request path, as it always was; `requestId` (an extension
   * member, RFC 9457 §3.2) names the occurrence: the request whose log lines tell the rest.
   */
  toJSON(instance?: string, requestId?: string): Record<string, unknown> {
    return {
      type: `urn:syncline:problem:${this.code}`,
      title: this.title,
      status: this.status,
      detail: this.detail,
      ...(instance ? { instance } : {}),
      ...(requestId ? { requestId } : {}),
      ...(this.extra.errors ? { errors: this.extra.errors } : {}),
    };
  }
}

const connectorCodes: Record<ConnectorErrorCode, ProblemCode> = {
  unsupported: 'unsupported',
  'unknown-object': 'unknown-object',
  'unknown-field': 'unknown-field',
  'invalid-value': 'invalid-value',
  'read-only': 'read-only',
  rejected: 'rejected',
  unavailable: 'unavailable',
  'definition-mismatch': 'definition-mismatch',
  timeout: 'statement-timeout',
  'too-large': 'result-too-large',
  busy: 'busy',
};

/**
 * The problem to answer for any thrown value; unknown errors become a bare 500. A driver error
 * that reaches here came from the runtime database: the connectors turn their systems' errors into
 * ConnectorErrors.
 */
export function toHttpProblem(error: unknown): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if (error instanceof ConnectorError) {
    const retryAfter = error.details?.retryAfterSeconds;
    return new HttpProblem(connectorCodes[error.code], error.message, {
      cause: error,
      ...(typeof retryAfter === 'number' ? { headers: { 'Retry-After': String(retryAfter) } } : {}),
    });
  }
  const failure = runtimeDatabaseFailure(error);
  if (failure !== undefined) {
    return new HttpProblem(
      'database-unavailable',
      `The runtime database cannot be used right now (${failure.reason}); try again in ${retryAfterSeconds} s.`,
      {
        headers: { 'Retry-After': String(retryAfterSeconds) },
        cause: error,
      },
    );
  }
  return new HttpProblem('internal', 'The request failed on the server; the log has the details.', { cause: error });
}
