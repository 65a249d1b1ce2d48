/**
 * The ConnectorErrors of a request, in our words: each names the system, the method and the path
 * (never the query, which may hold keys or personal data) and the HTTP status. What the server
 * said goes only into `cause` (an UpstreamAnswer: status and the first 2 KB of the body, with the
 * client's secrets taken out), for the log: an upstream error page is not ours to pass on, and it
 * may echo the request.
 */
import type { SystemLimits } from '../../definitions/system-limits.js';
import { ConnectorError } from '../connector-error.js';
import { statementTimeoutError } from '../limit-errors.js';
import type { NetworkFailure } from './network-failure.js';
import type { WebSettings } from './web-settings.js';

/** A request as messages name it. */
export interface RequestTarget {
  systemId: string;
  method: string;
  /** The URL's path, without its query. */
  path: string;
}

/** Most of an upstream body kept for the log. */
export const excerptChars = 2048;

/** What the server answered, kept as the `cause` of a ConnectorError for the log only. */
export class UpstreamAnswer extends Error {
  constructor(
    target: RequestTarget,
    readonly status: number,
    /** The body's first excerptChars characters, secrets redacted. */
    readonly body: string,
  ) {
    super(`HTTP ${status} to ${target.method} ${target.path}`);
    this.name = 'UpstreamAnswer';
  }
}

/** `text` cut to excerptChars; redact before cutting, so that a secret is never left half-shown. */
export function excerpt(text: string): string {
  return text.length > excerptChars ? `${text.slice(0, excerptChars)}…` : text;
}

const details = (target: RequestTarget, status?: number) => ({
  system: target.systemId,
  method: target.method,
  path: target.path,
  ...(status === undefined ? {} : { status }),
});

/** 401 or 403 (after one renewal of an OAuth2 token). */
export function credentialsRefused(target: RequestTarget, status: number, cause: UpstreamAnswer): ConnectorError {
  return new ConnectorError(
    'unavailable',
    `system '${target.systemId}' refused our credentials (HTTP ${status} to ${target.method} ${target.path}); check connection.auth of the System definition '${target.systemId}'`,
    { cause, details: details(target, status) },
  );
}

/**
 * The error for an answer the caller does not take: a refused write (400, 409, 412, 422) is
 * 'rejected'; anything else — a server failure, a 404 nobody expected — is 'unavailable'.
 */
export function answerError(target: RequestTarget, status: number, cause: UpstreamAnswer): ConnectorError {
  const write = !['GET', 'HEAD', 'OPTIONS'].includes(target.method);
  if (write && [400, 409, 412, 422].includes(status)) {
    return new ConnectorError('rejected', `system '${target.systemId}' refused ${target.method} ${target.path} (HTTP ${status})`, {
      cause,
      details: details(target, status),
    });
  }
  const what =
    status >= 500
      ? `failed ${target.method} ${target.path} (HTTP ${status})`
      : `answered ${target.method} ${target.path} with HTTP ${status}`;
  return new ConnectorError('unavailable', `system '${target.systemId}' ${what}`, { cause, details: details(target, status) });
}

/**
 * 429 or 503 still: after `retries` retries, or (`waitTooLong`) asking in Retry-After to wait
 * longer than retries.maxWait allows, or a write not tried again (`writeStops`: the answer has no
 * Retry-After, or the wait of retries.maxWait is spent). `retryAfterMs` is what the server asked
 * for, when it did.
 */
export function stillRefused(
  target: RequestTarget,
  status: 429 | 503,
  settings: WebSettings,
  wait: {
    retries: number;
    retryAfterMs: number | undefined;
    waitTooLong: boolean;
    writeStops?: 'no-retry-after' | 'wait-spent' | undefined;
  },
  cause: UpstreamAnswer,
): ConnectorError {
  const refusal =
    status === 429
      ? `refused ${target.method} ${target.path} as too many requests (HTTP 429)`
      : `answered ${target.method} ${target.path} with HTTP 503 (unavailable)`;
  const retryAfterSeconds = wait.retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(wait.retryAfterMs / 1000));
  const { retries } = wait;
  const outcome = wait.waitTooLong
    ? ` and asks to wait ${retryAfterSeconds} s, longer than connection.retries.maxWait (${settings.retries.maxWait}) allows`
    : wait.writeStops === 'no-retry-after'
      ? ` without Retry-After; a ${target.method} is sent again only when the system says when to, since it may have done the work`
      : wait.writeStops === 'wait-spent'
        ? `, also after waiting connection.retries.maxWait (${settings.retries.maxWait}); a ${target.method} is not sent again past it`
        : retries === 0
          ? ''
          : `, also after ${retries} ${retries === 1 ? 'retry' : 'retries'} (connection.retries.max)`;
  const advice = status === 429 && settings.rateLimit === undefined ? 'try again later, or set connection.rateLimit' : 'try again later';
  return new ConnectorError(status === 429 ? 'busy' : 'unavailable', `system '${target.systemId}' ${refusal}${outcome}; ${advice}`, {
    cause,
    details: { ...details(target, status), ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) },
  });
}

/** The request never got an answer: refused, reset, DNS, TLS. */
export function unreachable(target: RequestTarget, failure: NetworkFailure, cause: unknown): ConnectorError {
  return new ConnectorError(
    'unavailable',
    `system '${target.systemId}' cannot be reached: ${failure.reason} (${target.method} ${target.path})`,
    { cause, details: details(target) },
  );
}

/** The request, its answer included, ran past limits.statementTimeout. */
export function requestTimeout(target: RequestTarget, limits: SystemLimits): ConnectorError {
  return statementTimeoutError(target.systemId, `${target.method} ${target.path}`, limits);
}

/** The answer's body is over connection.maxResponseBytes. */
export function answerTooLarge(target: RequestTarget, settings: WebSettings): ConnectorError {
  return new ConnectorError(
    'too-large',
    `system '${target.systemId}' answered ${target.method} ${target.path} with more than ${settings.maxResponseBytesText}, over connection.maxResponseBytes of the System definition '${target.systemId}'; ask for less at a time (smaller pages), or raise maxResponseBytes`,
    { details: { ...details(target), limit: 'maxResponseBytes', value: settings.maxResponseBytesText } },
  );
}

/** A 2xx answer whose body does not parse as JSON. */
export function notJson(target: RequestTarget, status: number, cause: unknown): ConnectorError {
  return new ConnectorError(
    'unavailable',
    `system '${target.systemId}' answered ${target.method} ${target.path} (HTTP ${status}) with something that is not JSON`,
    { cause, details: details(target, status) },
  );
}

/** The OAuth2 token endpoint did not give us a token; `why` is a few words of ours (a status, a reason). */
export function tokenUnavailable(systemId: string, why: string, cause?: unknown): ConnectorError {
  return new ConnectorError(
    'unavailable',
    `system '${systemId}': could not obtain an OAuth2 access token from connection.auth.tokenUrl (${why})`,
    { cause, details: { system: systemId } },
  );
}
