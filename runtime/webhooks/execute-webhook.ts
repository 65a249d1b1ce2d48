/**
 * One webhook call from start to answer, without Koa: the HTTP route (webhook-route.ts), the
 * console's test function and the replay of a pinned log entry all run a call through here, so a
 * test behaves exactly like the real caller.
 *
 * The order of the checks, and why:
 * 1. Unknown id → 404, inactive → 410. The id is found with a hash lookup and confirmed with a
 *    constant-time comparison of digests (against a random decoy when there is no entry), and the
 *    request body was read and judged before (read-webhook-body.ts) for every id alike, so a guess
 *    learns nothing from timing about how close it came to a real id.
 * 2. OPTIONS → the CORS preflight (a browser sends it without credentials).
 * 3. A body the reader refused (400 broken JSON, 413, 415): answered here so the call is logged.
 * 4. Registration challenges that are GETs (x-crc, meta): the network sends neither our secret nor
 *    a signature.
 * 5. The signature over the raw body → 401. Then the POST challenges (slack, zoom), which those
 *    networks sign like their events.
 * 6. The seed's secret → 403. Challenges came before it: no network sends that header.
 * 7. The rate limit → 429. After authentication, so that strangers who know the URL cannot use up
 *    the budget of the real sender; refused calls only cost a digest comparison.
 * 8. The request schema → 400 with the schema's errors (query and form text converted first,
 *    text-fields.ts); then the data's shape → 400 when the action reads fields and the data is no
 *    JSON object (request-shape.ts), before a condition would read every field as null.
 * 9. The execution condition → 204 without running the action; the ticker says why.
 * 10. Idempotency: a repeat gets the first answer, a duplicate of a running call 409.
 * 11. The action; then the redirect (303) when one is configured.
 *
 * Every call of a known webhook is recorded in the call log, except CORS preflights and calls the
 * rate limit refused (a flood must not become a flood of log writes); a failing log write is
 * logged and never fails the call. The endpoint's entries are written in batches just after the
 * answers (log/call-log-writer.ts). Calls of unknown ids are not recorded: there is no webhook to
 * keep them under, and guessing ids must not fill the database.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { ErrorObject } from 'ajv';
import type { Snapshot, WebhookEntry } from '../../definitions/snapshot.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { HttpProblem, toHttpProblem, type ProblemDetail } from '../errors.js';
import { evaluateCondition, recordScope } from '../../definitions/expression/index.js';
import type { ConnectionProvider } from '../../connectors/connection-pool.js';
import type { Logger } from '../log.js';
import { answerChallenge, challengeBeforeSignature, signsLikeChallenge, type ChallengeAnswer } from './challenge.js';
import { constantTimeEqual } from './constant-time.js';
import { corsHeaders, preflightHeaders } from './cors.js';
import { claimIdempotencyKey, idempotencyKeyOf, idempotencyWindowMs, type RememberedAnswer } from './idempotency.js';
import type { WebhookCallRecord } from './log/record-call.js';
import { redactionOf, tickerRedaction, type Redaction } from './log/redact.js';
import { takeRateLimit } from './rate-limit.js';
import { signatureHeaderOf, verifySignature } from './signatures/index.js';
import { createTicker, type Ticker } from './ticker.js';
import type { WebhookActionHandler, WebhookCall, WebhookRequest } from './webhook-call.js';
import { checkRequestShape } from './request-shape.js';
import { coerceTextFields, hasTextFields } from './text-fields.js';
import { secretMatches } from './webhook-secret.js';
import { answerJson } from '../request/answer-json.js';
import { escapePointer, valueAt } from '../request/json-pointer.js';
import { isWideIntegerText } from '../../connectors/records/exact-json.js';

export interface WebhookDeps {
  /** The snapshot current when the call arrived. */
  snapshot: Snapshot;
  connections: ConnectionProvider;
  db: RuntimeDatabase;
  log: Logger;
  /** Runs the webhook's action (runWebhookAction of actions/index.ts). */
  runAction: WebhookActionHandler;
  /** Writes the call log entry (recordWebhookCall of log/record-call.ts); absent: nothing is logged. */
  record?: (record: WebhookCallRecord) => Promise<void>;
  /** SHA-256 of the admin token: like the ApiClients' tokens, it never reaches the log or the ticker. */
  adminTokenHash?: Buffer;
}

export interface ExecuteOptions {
  /** The call's id (ticker and log entry); default a new UUID. */
  callId?: string;
  /** Aborted when the caller went away. */
  signal?: AbortSignal;
  /** The reader refused the body (400, 413, 415): answered after the id checks, and logged. */
  refusal?: HttpProblem;
  /** The HTTP request's id (http/request-id.ts): in problem bodies, the log entry and the items the call starts. */
  requestId?: string;
}

/** The answer as the caller receives it. `body` is JSON data, or text for a text/plain answer. */
export interface WebhookResult {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
  /** The body as sent, written once (webhook-route.ts webhookResponseBody). */
  bodyText?: string;
  callId: string;
  /** The (first) queue item the action created (start sync): the console's test stream follows its run. */
  queueItemId?: string;
}

type Answer = Omit<WebhookResult, 'callId'> & { unlogged?: boolean };

/** Compared against when an id is unknown, so both paths do the same work. */
const decoyId = randomBytes(24).toString('base64url');

export async function executeWebhook(
  deps: WebhookDeps,
  webhookId: string,
  request: WebhookRequest,
  options: ExecuteOptions = {},
): Promise<WebhookResult> {
  const callId = options.callId ?? randomUUID();
  const at = new Date();
  const started = performance.now();
  const instance = `/api/webhooks/${webhookId}`;
  const entry = findWebhook(deps.snapshot, webhookId);
  if (!entry) {
    const problem = new HttpProblem('unknown-webhook', 'No webhook has this id. Check the URL; webhook ids are case-sensitive.');
    return { ...problemAnswer(problem, instance, options.requestId), callId };
  }
  const definition = entry.definition;
  const redaction = redactionOf(entry, deps.snapshot, definition.signature && signatureHeaderOf(definition.signature), deps.adminTokenHash);
  const ticker = createTicker(callId, tickerRedaction(redaction));
  ticker.say('start', `${request.method} call of webhook ${definition.id} (${definition.action})`);
  let answer: Answer;
  try {
    answer = await stages(deps, entry, request, ticker, options);
    // Written here, once: a body JSON cannot carry (a record's value nested thousands of levels
    // deep) is found while the call can still answer and log a problem, not once the route sends it.
    const bodyText = responseText(answer);
    if (bodyText !== undefined) answer = { ...answer, bodyText };
  } catch (error) {
    const problem = toHttpProblem(error);
    if (problem.status >= 500) deps.log.error({ err: problem.cause ?? error, webhookId: definition.id, callId }, 'webhook call failed');
    ticker.say('error', problem.status >= 500 ? 'the call failed on the server; the server log has the details' : problem.detail, {
      status: problem.status,
    });
    answer = { ...problemAnswer(problem, instance, options.requestId), unlogged: problem.code === 'rate-limited' };
  }
  answer = { ...answer, headers: { ...corsHeaders(definition.cors, request), ...answer.headers } };
  ticker.say('done', `answered ${answer.status}`, { status: answer.status });
  if (deps.record && !answer.unlogged)
    await record(deps, entry, request, {
      at,
      started,
      callId,
      ticker,
      answer,
      redaction,
      ...(options.refusal ? { refusal: options.refusal } : {}),
      ...(options.requestId ? { requestId: options.requestId } : {}),
    });
  return {
    status: answer.status,
    headers: answer.headers,
    ...(answer.body === undefined ? {} : { body: answer.body }),
    ...(answer.bodyText === undefined ? {} : { bodyText: answer.bodyText }),
    callId,
    ...(answer.queueItemId === undefined ? {} : { queueItemId: answer.queueItemId }),
  };
}

/** The answer's body as sent: text as it is, anything else as JSON (answerJson: a problem when JSON cannot carry it); undefined for none. */
export function responseText(answer: Pick<WebhookResult, 'body' | 'headers'>): string | undefined {
  if (answer.body === undefined) return undefined;
  return typeof answer.body === 'string' && /^text\//.test(answer.headers['Content-Type'] ?? '') ? answer.body : answerJson(answer.body);
}

/** The entry for `id`; the digest comparison runs whether or not the lookup found one. */
function findWebhook(snapshot: Snapshot, id: string): WebhookEntry | undefined {
  const entry = snapshot.webhooks.get(id);
  const confirmed = constantTimeEqual(id, entry ? entry.definition.id : decoyId);
  return confirmed ? entry : undefined;
}

async function stages(
  deps: WebhookDeps,
  entry: WebhookEntry,
  request: WebhookRequest,
  ticker: Ticker,
  options: ExecuteOptions,
): Promise<Answer> {
  const definition = entry.definition;
  if (!definition.active) throw new HttpProblem('gone', `Webhook ${definition.id} is inactive; it answers again once it is set active.`);
  if (request.method === 'OPTIONS') return { status: 204, headers: preflightHeaders(definition.cors, request), unlogged: true };
  if (options.refusal) throw options.refusal;

  const challenge = definition.challenge;
  if (challenge && challengeBeforeSignature(challenge.profile)) {
    const answered = answerChallenge(challenge, request);
    if (answered) return challengeAnswer(ticker, challenge.profile, answered);
  }
  if (definition.signature) {
    const failure = signsLikeChallenge(challenge, request.rawBody)
      ? 'the body has the shape of a challenge token, whose HMAC anyone can ask this webhook for'
      : verifySignature(definition.signature, request);
    if (failure !== undefined)
      throw new HttpProblem('bad-signature', `The ${definition.signature.profile} signature is refused: ${failure}.`);
  }
  if (challenge && !challengeBeforeSignature(challenge.profile)) {
    const answered = answerChallenge(challenge, request);
    if (answered) return challengeAnswer(ticker, challenge.profile, answered);
  }
  if (!secretMatches(definition.secret, request.headers)) {
    throw new HttpProblem('webhook-forbidden', 'Send the webhook secret in the service_webhooksecret or the Authorization header.');
  }
  if (definition.rateLimit) {
    const decision = takeRateLimit(definition.id, definition.rateLimit);
    if (!decision.allowed) {
      throw new HttpProblem(
        'rate-limited',
        `Webhook ${definition.id} allows ${definition.rateLimit.requests} calls per ${definition.rateLimit.per}; try again in ${decision.retryAfterSeconds} s.`,
        { headers: { 'Retry-After': String(decision.retryAfterSeconds) } },
      );
    }
  }
  request = acceptedRequest(entry, request);
  if (entry.condition) {
    if (!conditionHolds(entry, request)) {
      ticker.say('condition', `the execution condition is false, so the action does not run: ${definition.condition}`, {
        condition: definition.condition,
      });
      return { status: 204, headers: {} };
    }
    ticker.say('condition', 'the execution condition is true', { condition: definition.condition });
  }
  return definition.idempotency ? runOnce(deps, entry, request, ticker, options) : runAction(deps, entry, request, ticker, options);
}

/**
 * The request with its data as the request schema means it (text fields converted), once it
 * passed that schema and has a shape the action can work with; a 400 HttpProblem otherwise.
 * What the condition and the action see (and what `syncline test`'s condition cases judge).
 */
export function acceptedRequest(entry: WebhookEntry, request: WebhookRequest): WebhookRequest {
  const definition = entry.definition;
  const schema = definition.requestSchema;
  if (schema && hasTextFields(request)) request = { ...request, data: coerceTextFields(request.data, schema) };
  if (entry.validateRequest && !entry.validateRequest(request.data)) {
    const errors = schemaErrors(entry.validateRequest.errors ?? [], request.data);
    throw new HttpProblem(
      'invalid-request',
      `The request does not match the request schema of webhook ${definition.id}: ${errors.map((e) => `${e.path || '(root)'} ${e.message}`).join('; ')}.`,
      { errors },
    );
  }
  checkRequestShape(definition, request.data);
  return request;
}

/** Whether the webhook's execution condition holds for an accepted request (none: it always does). */
export function conditionHolds(entry: WebhookEntry, request: WebhookRequest): boolean {
  return entry.condition === undefined || evaluateCondition(entry.condition, recordScope(request.data));
}

/** The action with idempotency: a key's first call runs, a repeat gets its answer. */
async function runOnce(
  deps: WebhookDeps,
  entry: WebhookEntry,
  request: WebhookRequest,
  ticker: Ticker,
  options: ExecuteOptions,
): Promise<Answer> {
  const settings = entry.definition.idempotency!;
  const key = idempotencyKeyOf(settings, request);
  if (key === undefined) {
    ticker.say(
      'warning',
      `the call has no idempotency key (${settings.bodyPath === undefined ? `header ${settings.header}` : `body field ${settings.bodyPath}`}); it runs without the repeat check`,
    );
    return runAction(deps, entry, request, ticker, options);
  }
  const claim = await claimIdempotencyKey(deps.db, entry.definition.id, key, idempotencyWindowMs(settings));
  if (claim.kind === 'running')
    throw new HttpProblem('idempotency-conflict', 'A call with this idempotency key is still running; repeat it later to get its answer.');
  if (claim.kind === 'done') {
    ticker.say('warning', 'a repeat of an earlier call with this idempotency key: answered as before, nothing ran');
    return {
      status: claim.answer.status,
      headers: { ...claim.answer.headers, 'Idempotent-Replayed': 'true' },
      ...(claim.answer.body === undefined ? {} : { body: claim.answer.body }),
    };
  }
  let answer: Answer;
  try {
    answer = await runAction(deps, entry, request, ticker, options);
  } catch (error) {
    // A failed call frees its key: the sender's retry runs again.
    await claim
      .release()
      .catch((releaseError: unknown) =>
        deps.log.warn({ err: releaseError, webhookId: entry.definition.id }, 'could not release an idempotency key'),
      );
    throw error;
  }
  const remembered: RememberedAnswer = {
    status: answer.status,
    headers: answer.headers,
    ...(answer.body === undefined ? {} : { body: answer.body }),
  };
  await claim.complete(remembered);
  return answer;
}

async function runAction(
  deps: WebhookDeps,
  entry: WebhookEntry,
  request: WebhookRequest,
  ticker: Ticker,
  options: ExecuteOptions,
): Promise<Answer> {
  const call: WebhookCall = {
    entry,
    snapshot: deps.snapshot,
    connections: deps.connections,
    db: deps.db,
    log: deps.log,
    request,
    ticker,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.requestId ? { requestId: options.requestId } : {}),
  };
  const result = await deps.runAction(call);
  const queued = result.queueItemId === undefined ? {} : { queueItemId: result.queueItemId };
  const redirectUrl = entry.definition.redirectUrl;
  if (redirectUrl !== undefined) return { status: 303, headers: { Location: redirectUrl }, ...queued };
  if (result.status === 204 || result.body === undefined) return { status: 204, headers: {}, ...queued };
  return { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: result.body, ...queued };
}

function challengeAnswer(ticker: Ticker, profile: string, answered: ChallengeAnswer): Answer {
  ticker.say('condition', `a ${profile} registration challenge: answered without running the action`);
  const contentType = answered.contentType === 'text/plain' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
  // An echoed challenge must never be sniffed as HTML by a browser.
  return { status: 200, headers: { 'Content-Type': contentType, 'X-Content-Type-Options': 'nosniff' }, body: answered.body };
}

function problemAnswer(problem: HttpProblem, instance: string, requestId: string | undefined): Omit<Answer, 'unlogged'> {
  return {
    status: problem.status,
    headers: { ...problem.extra.headers, 'Content-Type': 'application/problem+json' },
    body: problem.toJSON(instance, requestId),
  };
}

/** Why a refused body is not in the log, as an entry's note: `body refused (400): the body is not valid JSON …`. */
function refusalNote(problem: HttpProblem): string {
  const detail = problem.detail.replace(/\.$/, '');
  return `body refused (${problem.status}): ${detail.charAt(0).toLowerCase()}${detail.slice(1)}`;
}

/** Ajv's errors as `{path, message}` with JSON pointers to the offending (or missing) property. */
export function schemaErrors(errors: readonly ErrorObject[], data?: unknown): ProblemDetail[] {
  return errors.map((error) => {
    const params = error.params as { missingProperty?: string; additionalProperty?: string };
    // What read-webhook-body.ts made of a JSON number past 2^53: the text of its digits.
    const value = valueAt(data, error.instancePath);
    if (error.keyword === 'type' && typeof value === 'string' && isWideIntegerText(value)) {
      const message = `${error.message ?? 'has the wrong type'}: it was sent as a whole number past 2^53, which a JSON number cannot hold exactly, so it arrives as the text of its digits; declare it {"type": "string"} (or ["integer", "string"])`;
      return { path: error.instancePath, message };
    }
    const child =
      error.keyword === 'required'
        ? params.missingProperty
        : error.keyword === 'additionalProperties'
          ? params.additionalProperty
          : undefined;
    const path = child === undefined ? error.instancePath : `${error.instancePath}/${escapePointer(child)}`;
    return { path, message: error.message ?? error.keyword };
  });
}

interface Timing {
  at: Date;
  started: number;
  callId: string;
  ticker: Ticker;
  answer: Answer;
  redaction: Redaction;
  /** The body the reader refused, when it did. */
  refusal?: HttpProblem;
  requestId?: string;
}

/** Answers to callers that were not let in: logged without payload. */
const refusedStatuses = new Set([401, 403, 410]);

async function record(
  deps: WebhookDeps,
  entry: WebhookEntry,
  request: WebhookRequest,
  { at, started, callId, ticker, answer, redaction, refusal, requestId }: Timing,
): Promise<void> {
  const definition = entry.definition;
  try {
    await deps.record!({
      id: callId,
      webhookId: definition.id,
      at,
      method: request.method,
      status: answer.status,
      durationMs: performance.now() - started,
      ...(answer.queueItemId === undefined ? {} : { queueItemId: answer.queueItemId }),
      ...(requestId === undefined ? {} : { requestId }),
      ticker: ticker.messages,
      request,
      response: { status: answer.status, ...(answer.body === undefined ? {} : { body: answer.body }) },
      // A refused caller's payload is not kept: whoever lacks the secret must not be able to fill
      // the log with up to its size cap per call (nor is such a call worth replaying).
      logPayload: definition.logPayload && !refusedStatuses.has(answer.status),
      retention: definition.logRetention,
      redaction,
      // A refused body (answered before the caller is authenticated) keeps only headers, query and
      // this note: bounded by the header limit, whoever sent it.
      ...(refusal && answer.status === refusal.status ? { bodyRefused: refusalNote(refusal) } : {}),
    });
  } catch (error) {
    deps.log.warn({ err: error, webhookId: definition.id, callId }, 'the webhook call could not be written to the call log');
  }
}
