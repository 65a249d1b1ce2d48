/**
 * An OAuth 2.0 access token by the client credentials grant (RFC 6749 §4.4), fetched once and
 * shared by every request of the client until shortly before it expires. Requests that need a
 * token while one is being fetched wait for that same fetch (one token request, not one per
 * request); a request whose caller goes away stops waiting, and the fetch goes on for the others.
 * A token the API refused (401) is dropped, so the next request fetches a new one.
 *
 * The token endpoint gets no retries of its own: the request that needed the token fails with
 * 'unavailable' ("could not obtain an OAuth2 access token", the status or reason in our words),
 * and the next request tries again. Its answer is never followed elsewhere by a redirect.
 */
import type { SystemLimits } from '../../definitions/system-limits.js';
import { abandonOnAbort, Deadline } from './abort-timing.js';
import { networkFailure } from './network-failure.js';
import type { Secrets } from './secrets.js';
import { excerpt, tokenUnavailable, UpstreamAnswer } from './web-errors.js';
import type { OAuth2Auth } from './web-settings.js';
import { readBody } from './web-response.js';

/** Renew this long before expiry at most (a tenth of the lifetime for short-lived tokens). */
const renewAheadMs = 60_000;

export interface TokenContext {
  systemId: string;
  limits: SystemLimits;
  maxResponseBytes: number;
  secrets: Secrets;
}

export class OAuth2Token {
  private current: { token: string; renewAtMs: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly auth: OAuth2Auth,
    private readonly context: TokenContext,
  ) {}

  /** A valid token: the cached one, or the one being fetched, or a new fetch. */
  get(signal?: AbortSignal): Promise<string> {
    if (this.current !== undefined && Date.now() < this.current.renewAtMs) return Promise.resolve(this.current.token);
    if (this.pending === undefined) {
      const pending = this.obtain().finally(() => {
        this.pending = undefined;
      });
      // Every waiter may have gone away: a failure nobody waits for must not be an unhandled rejection.
      pending.catch(() => undefined);
      this.pending = pending;
    }
    return abandonOnAbort(this.pending, signal);
  }

  /** Forgets `token` after the API refused it, unless a newer one already replaced it. */
  drop(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  private async obtain(): Promise<string> {
    const { systemId, limits } = this.context;
    const deadline = new Deadline(limits.statementTimeoutMs, undefined);
    try {
      const response = await fetch(this.auth.tokenUrl, {
        method: 'POST',
        headers: this.headers(),
        body: this.form(),
        redirect: 'manual',
        signal: deadline.signal,
      });
      const { bytes, over } = await readBody(response, this.context.maxResponseBytes);
      const text = new TextDecoder().decode(bytes);
      if (response.status < 200 || response.status >= 300) {
        const target = { systemId, method: 'POST', path: new URL(this.auth.tokenUrl).pathname };
        throw tokenUnavailable(systemId, `HTTP ${response.status}`, new UpstreamAnswer(target, response.status, this.redacted(text)));
      }
      const token = over ? undefined : accessToken(text);
      if (token === undefined) throw tokenUnavailable(systemId, 'its answer holds no access_token');
      this.context.secrets.addToken(token.value);
      const lifetimeMs = token.expiresInSeconds === undefined ? Number.POSITIVE_INFINITY : token.expiresInSeconds * 1000;
      this.current = { token: token.value, renewAtMs: Date.now() + lifetimeMs - Math.min(renewAheadMs, lifetimeMs / 10) };
      return token.value;
    } catch (error) {
      if (deadline.timedOut) throw tokenUnavailable(systemId, `no answer within limits.statementTimeout (${limits.statementTimeout})`);
      const failure = networkFailure(error);
      if (failure !== undefined) throw tokenUnavailable(systemId, failure.reason, error);
      throw error;
    } finally {
      deadline.end();
    }
  }

  /** RFC 6749 §2.3.1: Basic with the form-encoded id and secret, unless they go in the body. */
  private headers(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (this.auth.clientAuthentication === 'basic') headers.authorization = clientBasic(this.auth);
    return headers;
  }

  private form(): string {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (this.auth.scope !== undefined) form.set('scope', this.auth.scope);
    if (this.auth.audience !== undefined) form.set('audience', this.auth.audience);
    if (this.auth.clientAuthentication === 'body') {
      form.set('client_id', this.auth.clientId);
      form.set('client_secret', this.auth.clientSecret);
    }
    return form.toString();
  }

  private redacted(text: string): string {
    return excerpt(this.context.secrets.redact(text));
  }
}

/** The Authorization header a client authenticating with HTTP Basic sends to the token endpoint. */
export function clientBasic(auth: Pick<OAuth2Auth, 'clientId' | 'clientSecret'>): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(auth.clientId)}:${encode(auth.clientSecret)}`).toString('base64')}`;
}

function accessToken(text: string): { value: string; expiresInSeconds: number | undefined } | undefined {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { access_token: value, expires_in: expiresIn } = (answer ?? {}) as { access_token?: unknown; expires_in?: unknown };
  if (typeof value !== 'string' || value === '') return undefined;
  // Some servers send expires_in as a string; without a usable one the token lasts until refused.
  const seconds = Number(expiresIn);
  return { value, expiresInSeconds: expiresIn !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined };
}
