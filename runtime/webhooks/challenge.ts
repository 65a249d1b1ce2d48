/**
 * Registration challenges of third-party networks, answered without running the action:
 *
 * - `x-crc`: GET with `crc_token` → `{"response_token": "sha256=<base64 HMAC-SHA256(secret, token)>"}`.
 * - `zoom`: POST event `endpoint.url_validation` with `payload.plainToken` →
 *   `{"plainToken", "encryptedToken": <hex HMAC-SHA256(secret, plainToken)>}`.
 * - `slack`: POST `{"type": "url_verification", "challenge"}` → `{"challenge"}`.
 * - `meta`: GET `hub.mode=subscribe`, `hub.verify_token` (must equal verifyToken, compared in
 *   constant time; else 403) → `hub.challenge` as text/plain.
 *
 * Where a challenge sits among the checks (execute-webhook.ts): the networks cannot send the
 * seed's secret header, so every challenge is answered before the secret check. Slack and Zoom
 * sign their challenge requests like their events, so theirs come after the signature check; the
 * GET challenges (x-crc, meta) carry no body and are answered before it.
 *
 * A challenge answer is an HMAC of a value the caller chose, keyed with the network client secret.
 * Networks often use that same secret to sign events, and the x-crc answer has the very shape of
 * an `sha256=`-signature header, so an arbitrary value would make the endpoint sign forged bodies
 * for anyone. Only token-like values (letters, digits, - _ + /, `=` padding at the end, at most
 * 256) are signed — never a JSON or form body or a `timestamp.body` message — and a body that is
 * itself token-like is never accepted as signed (`signsLikeChallenge`).
 */
import type { WebhookDefinition } from '../../definitions/types.js';
import { HttpProblem } from '../errors.js';
import { resolvePath } from '../../definitions/expression/index.js';
import { constantTimeEqual } from './constant-time.js';
import { hmac } from './signatures/signed-parts.js';
import type { WebhookRequest } from './webhook-call.js';

type Challenge = NonNullable<WebhookDefinition['challenge']>;

export interface ChallengeAnswer {
  body: unknown;
  contentType: 'application/json' | 'text/plain';
}

/**
 * What a network's challenge token looks like (base64 or base64url, padding only at the end). The
 * HMAC of a challenge answer is a signature anyone can ask for, often under the secret that also
 * signs events: signing only such tokens — never a string with `=`, `.`, `&`, braces or blanks
 * inside — keeps an answer from being a valid signature of a form or JSON body or of a
 * `timestamp.body` message; `signsLikeChallenge` refuses the rest (a body that is itself such a token).
 */
const tokenLike = /^[A-Za-z0-9\-_+/]{1,256}={0,2}$/;

/** True when `rawBody` could be a challenge token: its signature may have come from a challenge answer. */
export function signsLikeChallenge(challenge: Challenge | undefined, rawBody: Buffer): boolean {
  return (
    (challenge?.profile === 'x-crc' || challenge?.profile === 'zoom') && rawBody.length <= 258 && tokenLike.test(rawBody.toString('latin1'))
  );
}

/** GET challenges carry no body to sign; the POST ones (slack, zoom) are signed like events. */
export function challengeBeforeSignature(profile: Challenge['profile']): boolean {
  return profile === 'x-crc' || profile === 'meta';
}

/** The answer when `request` is the configured network's challenge; undefined when it is an ordinary call. */
export function answerChallenge(challenge: Challenge, request: WebhookRequest): ChallengeAnswer | undefined {
  switch (challenge.profile) {
    case 'x-crc': {
      const token = single(request.query.crc_token);
      if (request.method !== 'GET' || token === undefined) return undefined;
      const signed = hmac('sha256', challenge.secret ?? '', [checkedToken(token, 'crc_token')]).toString('base64');
      return { body: { response_token: `sha256=${signed}` }, contentType: 'application/json' };
    }
    case 'zoom': {
      if (request.method !== 'POST' || resolvePath(request.data, ['event']) !== 'endpoint.url_validation') return undefined;
      const plainToken = resolvePath(request.data, ['payload', 'plainToken']);
      if (typeof plainToken !== 'string')
        throw new HttpProblem('invalid-request', 'The endpoint.url_validation event has no payload.plainToken.', {
          errors: [{ path: '/payload/plainToken', message: 'must be a string' }],
        });
      const encryptedToken = hmac('sha256', challenge.secret ?? '', [checkedToken(plainToken, 'payload.plainToken')]).toString('hex');
      return { body: { plainToken, encryptedToken }, contentType: 'application/json' };
    }
    case 'slack': {
      if (request.method !== 'POST' || resolvePath(request.data, ['type']) !== 'url_verification') return undefined;
      const text = resolvePath(request.data, ['challenge']);
      if (typeof text !== 'string')
        throw new HttpProblem('invalid-request', 'The url_verification request has no challenge.', {
          errors: [{ path: '/challenge', message: 'must be a string' }],
        });
      return { body: { challenge: text }, contentType: 'application/json' };
    }
    case 'meta': {
      if (request.method !== 'GET' || single(request.query['hub.mode']) !== 'subscribe') return undefined;
      const presented = single(request.query['hub.verify_token']) ?? '';
      const text = single(request.query['hub.challenge']);
      if (!constantTimeEqual(presented, challenge.verifyToken ?? '') || challenge.verifyToken === undefined) {
        throw new HttpProblem('webhook-forbidden', 'hub.verify_token does not match the verify token of this webhook.');
      }
      if (text === undefined)
        throw new HttpProblem('invalid-request', 'The subscription request has no hub.challenge.', {
          errors: [{ path: 'query.hub.challenge', message: 'missing' }],
        });
      return { body: text, contentType: 'text/plain' };
    }
  }
}

function checkedToken(token: string, name: string): string {
  if (!tokenLike.test(token)) {
    throw new HttpProblem(
      'invalid-request',
      `${name} is not a challenge token (at most 256 letters, digits, - _ + / and = padding at the end).`,
      { errors: [{ path: name, message: 'not a challenge token' }] },
    );
  }
  return token;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}
