/**
 * Errors a connection reports. Each code has one meaning the HTTP layer maps to a status; the
 * message is safe to show a caller (it names objects, fields and capabilities, never SQL, driver
 * text or credentials). The underlying driver error travels as `cause`, for the log only.
 */
export type ConnectorErrorCode =
  /** The connector cannot do this (a filter construct, ordering, a free query): HTTP 422. */
  | 'unsupported'
  /** The object is not declared for the system: HTTP 404. */
  | 'unknown-object'
  /** A field named in a filter, order or write is not declared: HTTP 400. */
  | 'unknown-field'
  /** A value does not fit its field's type: HTTP 400. */
  | 'invalid-value'
  /** The system or object is read-only, or a free query tried to write: HTTP 403. */
  | 'read-only'
  /** The system refused the write (a constraint, a missing required value): HTTP 409. */
  | 'rejected'
  /** The system cannot be reached: HTTP 503. */
  | 'unavailable'
  /** A statement ran longer than the system's limits.statementTimeout and was stopped: HTTP 504. */
  | 'timeout'
  /** A free query's result is over the system's limits.queryRows or queryBytes: HTTP 422. */
  | 'too-large'
  /** limits.concurrentQueries free queries run and none ended within queryWait: HTTP 503 (details.retryAfterSeconds). */
  | 'busy'
  /** The system lacks a table or column its definition declares: an operator's fix, HTTP 500. */
  | 'definition-mismatch';

export class ConnectorError extends Error {
  constructor(
    readonly code: ConnectorErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ConnectorError';
    this.details = options.details;
  }

  readonly details: Record<string, unknown> | undefined;
}
