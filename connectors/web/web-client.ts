/**
 * The HTTP client of the connectors that talk to web APIs (`odata`, `http`). One WebClient per
 * Connection, made from the System's `connection:` block (web-settings.ts) and `limits:`. It knows
 * HTTP, never a connector's protocol: what a path, a page or an error body means is the
 * connector's business. Built on Node's own fetch. Everything is imported from `web/index.ts`:
 *
 *   connectionSchema: { type: 'object', additionalProperties: false,
 *     required: [...webConnectionRequired], properties: { ...webConnectionProperties, …its own } }
 *
 *   const web = WebClient.forSystem(system, 'odata');
 *   const page = await web.request({ path: 'Customers', query: { $top: 100 }, signal });
 *   if (page.status === 404) return undefined;      // the connector decides what a 404 means
 *   if (!page.ok) throw page.failure();              // else the client's error for it
 *   const body = page.json();
 *   const next = linkTarget(page.headers.get('link'), 'next', page.url);  // or a link in the body
 *   await web.request({ path: next, signal });       // absolute: followed on baseUrl's origin only
 *   await web.getJson('Customers', { signal });      // GET, 2xx → JSON, anything else → failure()
 *   await web.check();                               // Connection.check()
 *
 * **Where requests go.** `path` is resolved below connection.baseUrl, keeping its path: baseUrl
 * `http://h/odata/v4/crm/` and `Customers` (or `/Customers`) → `http://h/odata/v4/crm/Customers`.
 * An absolute URL (a server's next link, a `Link` header's target) is followed only when it has
 * baseUrl's origin (scheme, host, port): credentials never go to another host, so anything else is
 * a ConnectorError ('unavailable') and no request is made. Redirects are followed for GET and
 * HEAD within that origin only (at most 5); other methods get the 3xx answer. `query` values are
 * escaped only where they would change the query's meaning (`$filter=Name%20eq%20'x'`).
 *
 * **Signing in.** Every request carries connection.auth: Basic, Bearer, an API key in its header
 * (never in the query), or an OAuth2 client-credentials token. The token is fetched once and
 * shared until shortly before `expires_in` runs out; concurrent requests wait for one token
 * request. A 401 drops the token, fetches a new one and sends the request once more; a second 401
 * is an error. A token endpoint that fails is 'unavailable' ("could not obtain an OAuth2 access
 * token", with its status only).
 *
 * **Time.** Each try of a request — sending it and reading its whole answer — may take the
 * System's limits.statementTimeout; then it is stopped and the error is 'timeout', naming the
 * limit and the system. The caller's `signal` stops a request, a wait for a retry or for a rate
 * slot at once, rejecting with the signal's own reason.
 *
 * **Retries.** 429 and 503 are retried up to connection.retries.max times, after the
 * `Retry-After` the server sent (seconds or an HTTP-date) or else a backoff doubling from 500ms,
 * ±20% at random. The waits of one request never add up to more than retries.maxWait: a
 * Retry-After asking for longer fails at once, with details.retryAfterSeconds ('busy' for 429,
 * 'unavailable' for 503), as do the last 429 or 503. GET, HEAD, OPTIONS, PUT and DELETE are
 * idempotent and retried so; any other method (POST, PATCH) only when the answer carries
 * Retry-After — the server's word that it did not do the work (a bare 503 may come from a proxy
 * after the work was done) — and never once retries.maxWait is spent, so that a write is not
 * made twice. A connection that fails (refused, reset) is retried for GET and HEAD only: a write
 * may have happened. An OAuth2 renewal does not count as a retry. `check()` makes one try, without
 * retries.
 *
 * **Rate.** With connection.rateLimit, every request and retry of the client waits for a slot
 * (`requests` per `per`, the first `requests` at once), in the order they asked.
 *
 * **Answers.** `request` returns every answer it does not handle itself — 2xx, 3xx and 4xx
 * (a 404 included: a record not found is no error) — with the body read, at most
 * connection.maxResponseBytes of it: a larger body is cut off as it streams in and the error is
 * 'too-large'. It throws for what it handles: 401/403 → 'unavailable' ("refused our
 * credentials"), 5xx → 'unavailable'. A caller turns an answer it does not take into the error
 * with `response.failure()`: 'rejected' for a write refused with 400, 409, 412 or 422, else
 * 'unavailable'. `response.json()` of a body that is not JSON is 'unavailable' too.
 *
 * **Messages.** Every ConnectorError says what happened in our words: the system, the method, the
 * path (never the query string) and the status, which `details` also holds ({system, method, path,
 * status}) for a connector that refines an error. What the server said travels only in `cause`
 * (UpstreamAnswer: status, the body's first 2 KB), for the log; the client's secrets (passwords,
 * tokens, keys, client secrets, the values of connection.headers) are taken out of it, and no
 * message holds one. A connector that reads an error body to refine the error (an OData error
 * code) must not put its text in a message. What fetch or the URL parser throw themselves (a
 * header value fetch refuses, a link that is not a URL) is 'unavailable' too, the raw error only
 * in `cause`: never a bare TypeError.
 */
import type { SystemDefinition } from '../../definitions/types.js';
import { ConnectorError } from '../connector-error.js';
import { stringifyJson } from '../records/json-number-text.js';
import { systemLimits, type SystemLimits } from '../../definitions/system-limits.js';
import { Deadline, wait } from './abort-timing.js';
import { Credentials } from './credentials.js';
import { networkFailure, type NetworkFailure } from './network-failure.js';
import { displayPath, redirectUrl, requestUrl, type QueryParameters } from './request-url.js';
import { RequestRate } from './request-rate.js';
import { backoffDelayMs, parseRetryAfter } from './retry-timing.js';
import { Secrets } from './secrets.js';
import {
  answerError,
  answerTooLarge,
  credentialsRefused,
  requestTimeout,
  stillRefused,
  unreachable,
  type RequestTarget,
  type UpstreamAnswer,
} from './web-errors.js';
import { readBody, upstreamAnswer, WebResponse } from './web-response.js';
import { webSettings, type WebSettings } from './web-settings.js';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface WebRequest {
  /** Default GET. */
  method?: HttpMethod;
  /** A path below connection.baseUrl, or an absolute URL of baseUrl's origin (a next link). */
  path: string;
  /** Appended to the path's own query, if it has one. */
  query?: QueryParameters;
  /** Over the static connection.headers; the auth headers are always the client's. */
  headers?: Readonly<Record<string, string>>;
  /** A body sent as JSON (Content-Type application/json unless `headers` names another); a JsonNumberText in it is a bare number. */
  json?: unknown;
  /** A body sent as is, when `json` is absent. */
  body?: string | Uint8Array;
  /** The Accept header; default application/json. */
  accept?: string;
  signal?: AbortSignal;
}

export interface WebClientOptions {
  systemId: string;
  /** Names the client in User-Agent: `syncline-<connectorName>`. */
  connectorName: string;
  settings: WebSettings;
  limits: SystemLimits;
}

/** Methods that mean the same done twice as once (RFC 9110 §9.2.2): retried on 429 and 503 without Retry-After too. */
const idempotentMethods: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Most redirects one GET or HEAD follows. */
const maxRedirects = 5;
/** Bytes of an answer the client handles itself (401, 429, 5xx…) read for the log: the excerpt, with room to redact. */
const handledAnswerBytes = 16 * 1024;

/** One try's outcome: an answer (body read), or a connection that failed. */
type Exchange =
  | { kind: 'answer'; status: number; headers: Headers; body: Uint8Array; token: string | undefined }
  | { kind: 'failed'; failure: NetworkFailure; error: unknown };

export class WebClient {
  readonly systemId: string;
  /** Private: it holds the credentials. */
  private readonly settings: WebSettings;
  private readonly limits: SystemLimits;
  private readonly userAgent: string;
  private readonly secrets = new Secrets();
  private readonly credentials: Credentials;
  private readonly rate: RequestRate | undefined;
  private readonly baseUrl: URL;

  constructor(options: WebClientOptions) {
    this.systemId = options.systemId;
    this.settings = options.settings;
    this.limits = options.limits;
    this.baseUrl = new URL(options.settings.baseUrl);
    this.userAgent = `syncline-${options.connectorName}`;
    const { secrets, systemId, limits } = this;
    this.credentials = new Credentials(options.settings.auth, {
      systemId,
      limits,
      secrets,
      maxResponseBytes: options.settings.maxResponseBytes,
    });
    this.rate = options.settings.rateLimit && new RequestRate(options.settings.rateLimit);
    // Static headers carry keys and tenant tokens as often as auth does (X-API-Key, a session header): never logged either.
    secrets.add(...Object.values(options.settings.headers));
  }

  /** The client of a validated System definition. */
  static forSystem(system: SystemDefinition, connectorName: string): WebClient {
    return new WebClient({ systemId: system.id, connectorName, settings: webSettings(system.connection), limits: systemLimits(system) });
  }

  /** Sends a request (with auth, retries and the rate limit) and reads its answer; see the overview above. */
  request(request: WebRequest): Promise<WebResponse> {
    return this.send(request, this.settings.retries.max);
  }

  /** GET `path` and its JSON; any answer but 2xx is the client's error (`response.failure()`). */
  async getJson(path: string, options: Pick<WebRequest, 'query' | 'headers' | 'signal'> = {}): Promise<unknown> {
    const response = await this.request({ ...options, method: 'GET', path });
    if (!response.ok) throw response.failure();
    return response.json();
  }

  /**
   * What the server said about a request carried inside another one (a part of an OData `$batch`
   * answer), as the UpstreamAnswer a connector keeps as the `cause` of its own error: the status
   * and the start of the body, with the client's secrets taken out as for any answer. `path` is
   * the inner request's, without its query.
   */
  innerAnswer(method: string, path: string, status: number, body: string): UpstreamAnswer {
    return upstreamAnswer(
      { systemId: this.systemId, method, path: path.split('?')[0]! },
      status,
      new TextEncoder().encode(body),
      this.secrets,
    );
  }

  /**
   * Whether `path` (below baseUrl) lands below baseUrl's own path once resolved as `request`
   * resolves it: the URL parser reads `\` as `/` and drops tabs and newlines, so `Customers\..\..`
   * or `.<tab>./` climb out as `../` does, and only the resolved path can tell.
   */
  staysBelowBase(path: string): boolean {
    try {
      return requestUrl(this.systemId, this.baseUrl, path).pathname.startsWith(this.baseUrl.pathname);
    } catch {
      return false;
    }
  }

  /**
   * Resolves when a GET of `path` (default: baseUrl itself) answers 2xx; rejects with a
   * ConnectorError saying why not — connection refused, host not found, TLS, credentials, status.
   * One try, without retries: a check answers for now, and says so at once.
   */
  async check(path = '', signal?: AbortSignal): Promise<void> {
    const response = await this.send({ method: 'GET', path, accept: '*/*', ...(signal ? { signal } : {}) }, 0);
    if (!response.ok) throw response.failure();
  }

  /** `request` with up to `max` retries. */
  private async send(request: WebRequest, max: number): Promise<WebResponse> {
    const method = request.method ?? 'GET';
    const reading = method === 'GET' || method === 'HEAD';
    let url = requestUrl(this.systemId, this.baseUrl, request.path, request.query);
    const body = request.json === undefined ? request.body : stringifyJson(request.json);
    const headers = this.headers(request, { systemId: this.systemId, method, path: displayPath(url) });
    const { maxWaitMs } = this.settings.retries;
    let retries = 0;
    let waitedMs = 0;
    let renewed = false;
    let redirects = 0;
    for (;;) {
      const target: RequestTarget = { systemId: this.systemId, method, path: displayPath(url) };
      await this.rate?.take(request.signal);
      const followRedirect = reading && redirects < maxRedirects;
      const tried = await this.exchange(target, url, headers, body, followRedirect, request.signal);
      let delayMs: number;
      if (tried.kind === 'failed') {
        if (!tried.failure.transient || !reading || retries >= max) throw unreachable(target, tried.failure, tried.error);
        delayMs = backoffDelayMs(retries + 1);
      } else {
        const { status } = tried;
        const cause = () => upstreamAnswer(target, status, tried.body, this.secrets);
        if (status === 401 && tried.token !== undefined && !renewed) {
          this.credentials.renew(tried.token);
          renewed = true;
          continue;
        }
        if (status === 401 || status === 403) throw credentialsRefused(target, status, cause());
        if (status === 429 || status === 503) {
          const retryAfterMs = parseRetryAfter(tried.headers.get('retry-after'));
          const waitTooLong = retries < max && retryAfterMs !== undefined && retryAfterMs > maxWaitMs - waitedMs;
          // A write goes again only on the server's word that it did not do it, and within the wait budget.
          let writeStops: 'no-retry-after' | 'wait-spent' | undefined;
          if (!idempotentMethods.has(method)) {
            if (retryAfterMs === undefined) writeStops = 'no-retry-after';
            else if (waitedMs >= maxWaitMs) writeStops = 'wait-spent';
          }
          if (retries >= max || waitTooLong || writeStops !== undefined)
            throw stillRefused(target, status, this.settings, { retries, retryAfterMs, waitTooLong, writeStops }, cause());
          delayMs = retryAfterMs ?? backoffDelayMs(retries + 1);
        } else if (status >= 500) {
          throw answerError(target, status, cause());
        } else if (followRedirect && isRedirect(status, tried.headers)) {
          redirects += 1;
          url = redirectUrl(this.systemId, url, tried.headers.get('location')!);
          continue;
        } else {
          return new WebResponse(status, tried.headers, url, target, tried.body, this.secrets);
        }
      }
      // Never more than retries.maxWait in all: the last wait is cut short to fit.
      const pauseMs = Math.max(0, Math.min(delayMs, maxWaitMs - waitedMs));
      retries += 1;
      await wait(pauseMs, request.signal);
      waitedMs += pauseMs;
    }
  }

  /** One try: signed in, sent, and its answer read, all within limits.statementTimeout. */
  private async exchange(
    target: RequestTarget,
    url: URL,
    headers: Headers,
    body: string | Uint8Array | undefined,
    followRedirect: boolean,
    signal: AbortSignal | undefined,
  ): Promise<Exchange> {
    const deadline = new Deadline(this.limits.statementTimeoutMs, signal);
    try {
      const signedIn = await this.credentials.signIn(deadline.signal);
      const sent = new Headers(headers);
      for (const [name, value] of Object.entries(signedIn.headers)) sent.set(name, value);
      const init = { method: target.method, headers: sent, body: body as BodyInit | undefined, redirect: 'manual' as const };
      const response = await fetch(url, { ...init, signal: deadline.signal });
      // An answer the client acts on itself (401, 429, 5xx, a redirect it follows) is read only as far as the log needs it.
      const { status } = response;
      const handled = [401, 403, 429].includes(status) || status >= 500 || (followRedirect && isRedirect(status, response.headers));
      const { bytes, over } = await readBody(response, handled ? handledAnswerBytes : this.settings.maxResponseBytes);
      if (over && !handled) throw answerTooLarge(target, this.settings);
      return { kind: 'answer', status, headers: response.headers, body: bytes, token: signedIn.token };
    } catch (error) {
      const explained = deadline.explain(error, () => requestTimeout(target, this.limits));
      const failure = explained === error ? networkFailure(error) : undefined;
      if (failure !== undefined) return { kind: 'failed', failure, error };
      if (explained instanceof ConnectorError || signal?.aborted) throw explained;
      // Anything else fetch throws (a header value it refuses, a body it cannot send) is ours to word: the raw error only as the cause.
      throw notSent(target, error);
    } finally {
      deadline.end();
    }
  }

  /**
   * The request's headers before signing in: defaults, then connection.headers, then the request's
   * own. A value fetch refuses (a line break) is 'unavailable', the value only in the cause.
   */
  private headers(request: WebRequest, target: RequestTarget): Headers {
    try {
      return this.headersOf(request);
    } catch (error) {
      throw notSent(target, error);
    }
  }

  private headersOf(request: WebRequest): Headers {
    const headers = new Headers({ accept: 'application/json', 'user-agent': this.userAgent });
    for (const [name, value] of Object.entries(this.settings.headers)) headers.set(name, value);
    for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name, value);
    if (request.accept !== undefined) headers.set('accept', request.accept);
    if (request.json !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
    return headers;
  }
}

/** A request fetch would not send (a header value it refuses, a body it cannot take), in our words. */
function notSent(target: RequestTarget, cause: unknown): ConnectorError {
  return new ConnectorError('unavailable', `system '${target.systemId}': ${target.method} ${target.path} could not be sent`, {
    cause,
    details: { system: target.systemId, method: target.method, path: target.path },
  });
}

/** A redirect the client can follow: one of the redirect statuses, with a Location. */
function isRedirect(status: number, headers: Headers): boolean {
  return [301, 302, 303, 307, 308].includes(status) && headers.has('location');
}
