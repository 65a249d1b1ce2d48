/**
 * The JSON format of `$batch` (OData JSON Format 4.01 §19): `{"requests": [...]}`, each request with
 * an `id` and, for those of one changeset, the same `atomicityGroup`; the answer
 * `{"responses": [...]}` carries the ids back, in any order. A changeset failed when any of its
 * requests was answered with an error (SAP CAP answers each request of a failed group, the
 * standard allows one answer for the group: both are read the same way).
 */
import { changesetOutcome, parsedBody, type BatchAnswer, type BatchRequest, type ChangesetReading } from './batch-parts.js';

export const JSON_BATCH_TYPE = 'application/json';

/** The body of a JSON batch of `changesets`. */
export function jsonBatchBody(changesets: ReadonlyArray<readonly BatchRequest[]>): unknown {
  return {
    requests: changesets.flatMap((requests, group) =>
      requests.map((request, index) => ({
        id: `r${group}-${index}`,
        atomicityGroup: `g${group}`,
        method: request.method,
        url: request.url,
        headers: { ...(request.body === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers },
        ...(request.body === undefined ? {} : { body: request.body }),
      })),
    ),
  };
}

/** An answer of the batch; undefined when its status is not one (what happened is not known then). */
function answerOf(response: Record<string, unknown>): BatchAnswer | undefined {
  const status = response.status;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) return undefined;
  const headers: Record<string, string> = {};
  const given = response.headers;
  if (given !== null && typeof given === 'object') {
    for (const [name, value] of Object.entries(given)) if (typeof value === 'string') headers[name.toLowerCase()] = value;
  }
  const body = response.body;
  const text = body === undefined ? '' : typeof body === 'string' ? body : bodyText(body);
  return { status, headers, body: typeof body === 'string' ? parsedBody(body) : body, text };
}

/**
 * An answer's body as text, for the log. One nested past what JSON.stringify can walk (20,000
 * levels) threw a bare RangeError out of the whole write, whose outcome the batch answer did say.
 */
function bodyText(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch {
    return '[a body nested too deeply to keep as text]';
  }
}

/**
 * Each changeset's outcome from a JSON batch answer, by position (batch-parts.ts ChangesetReading):
 * undefined for a changeset the answer does not mention (a service that stopped at the first
 * failure), `unknown` for one it mentions without a readable outcome. Null when the body is not a
 * JSON batch answer at all.
 */
export function readJsonBatch(body: unknown, changesets: ReadonlyArray<readonly BatchRequest[]>): ChangesetReading[] | null {
  const responses = (body as { responses?: unknown } | null)?.responses;
  if (!Array.isArray(responses)) return null;
  const byId = new Map<string, BatchAnswer>();
  const groupFailures = new Map<string, BatchAnswer>();
  // Ids and groups the answer speaks of, readable or not.
  const mentioned = new Set<string>();
  for (const response of responses) {
    if (response === null || typeof response !== 'object') continue;
    const { id, atomicityGroup } = response as { id?: unknown; atomicityGroup?: unknown };
    if (typeof id === 'string') mentioned.add(id);
    if (typeof atomicityGroup === 'string') mentioned.add(atomicityGroup);
    const answer = answerOf(response as Record<string, unknown>);
    if (answer === undefined) continue;
    if (typeof id === 'string') byId.set(id, answer);
    // One answer for a whole failed group may carry the group's id instead of a request's.
    if (typeof atomicityGroup === 'string' && answer.status >= 400) groupFailures.set(atomicityGroup, answer);
    if (typeof id === 'string' && id.startsWith('g') && answer.status >= 400) groupFailures.set(id, answer);
  }
  return changesets.map((requests, group) => {
    const failure = groupFailures.get(`g${group}`);
    const ids = requests.map((_, index) => `r${group}-${index}`);
    if (!mentioned.has(`g${group}`) && !ids.some((id) => mentioned.has(id))) return undefined;
    const answers = ids.map((id) => byId.get(id));
    if (failure !== undefined && !answers.some((answer) => answer !== undefined && answer.status >= 400)) {
      return { ok: false, failure, request: requests[0]! };
    }
    return changesetOutcome(requests, answers);
  });
}
