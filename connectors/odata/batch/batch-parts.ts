/**
 * The pieces of an OData `$batch`, whatever its format: requests grouped into changesets (each
 * changeset atomic: all of its requests happen, or none), and for each changeset either the answer
 * of each of its requests or the one answer that made it fail.
 */
import { parseExactJson } from '../../records/exact-json.js';

/** One request inside a batch; `url` is relative to the service root (`Customers(7)`). */
export interface BatchRequest {
  method: 'GET' | 'POST' | 'PATCH';
  url: string;
  headers?: Readonly<Record<string, string>>;
  /** Sent as JSON. */
  body?: unknown;
}

export interface BatchAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  /** The body parsed as JSON, or its text when it is not JSON, or undefined when there is none. */
  body: unknown;
  /** The body as it came, for the log. */
  text: string;
}

/** A changeset's outcome: every request's answer (all 2xx), or the answer that failed it. */
export type ChangesetOutcome = { ok: true; answers: BatchAnswer[] } | { ok: false; failure: BatchAnswer; request: BatchRequest };

/**
 * How a batch answer speaks of one changeset: its outcome; `unknown` when the answer has a part for
 * it that cannot be read or is incomplete (the service may have written it, so it must never be
 * sent again); undefined when the answer does not mention it (a service that stopped before it:
 * nothing of it was done).
 */
export type ChangesetReading = ChangesetOutcome | 'unknown' | undefined;

export const ok = (status: number): boolean => status >= 200 && status < 300;

/**
 * The outcome of a changeset the answer speaks of, from the answers the service gave to its
 * requests (in request order; undefined for one it gave no readable answer to).
 */
export function changesetOutcome(
  requests: readonly BatchRequest[],
  answers: ReadonlyArray<BatchAnswer | undefined>,
): ChangesetOutcome | 'unknown' {
  const failed = answers.findIndex((answer) => answer !== undefined && !ok(answer.status));
  if (failed >= 0) return { ok: false, failure: answers[failed]!, request: requests[failed] ?? requests[0]! };
  if (answers.length < requests.length || answers.some((answer) => answer === undefined)) return 'unknown';
  return { ok: true, answers: answers as BatchAnswer[] };
}

/** A body as a batch answer carries it: JSON when it parses, else the text. */
export function parsedBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return parseExactJson(text);
  } catch {
    return text;
  }
}
