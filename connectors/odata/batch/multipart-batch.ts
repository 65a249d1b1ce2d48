/**
 * The multipart format of `$batch` (OData 4.0 Part 1 §11.7), the one every v4 service takes: a
 * `multipart/mixed` body with one part per changeset, itself `multipart/mixed` with one
 * `application/http` part per request (numbered by Content-ID). The answer has one part per
 * changeset, in order: a `multipart/mixed` of the requests' answers when it succeeded, a single
 * `application/http` answer when it failed. Boundaries are random, so no value can end a part.
 */
import { randomUUID } from 'node:crypto';
import { stringifyJson } from '../../records/json-number-text.js';
import { changesetOutcome, parsedBody, type BatchAnswer, type BatchRequest, type ChangesetReading } from './batch-parts.js';

const CRLF = '\r\n';

export interface MultipartBody {
  contentType: string;
  body: string;
}

/** The body of a multipart batch of `changesets`, with its Content-Type. */
export function multipartBatchBody(changesets: ReadonlyArray<readonly BatchRequest[]>): MultipartBody {
  const batch = `batch_${randomUUID()}`;
  let contentId = 0;
  const parts = changesets.map((requests) => {
    const changeset = `changeset_${randomUUID()}`;
    const inner = requests.map((request) => {
      contentId += 1;
      const headers = { ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...request.headers };
      const lines = [
        'Content-Type: application/http',
        'Content-Transfer-Encoding: binary',
        `Content-ID: ${contentId}`,
        '',
        `${request.method} ${request.url} HTTP/1.1`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        '',
        request.body === undefined ? '' : stringifyJson(request.body),
      ];
      return `--${changeset}${CRLF}${lines.join(CRLF)}${CRLF}`;
    });
    return `--${batch}${CRLF}Content-Type: multipart/mixed; boundary=${changeset}${CRLF}${CRLF}${inner.join('')}--${changeset}--${CRLF}`;
  });
  return { contentType: `multipart/mixed; boundary=${batch}`, body: `${parts.join('')}--${batch}--${CRLF}` };
}

/** The boundary parameter of a multipart Content-Type, or undefined. */
export function boundaryOf(contentType: string | null | undefined): string | undefined {
  if (!contentType || !/^\s*multipart\//i.test(contentType)) return undefined;
  const match = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

interface Part {
  headers: Record<string, string>;
  content: string;
}

/** Headers up to the first empty line, and what follows. Line ends may be CRLF or LF. */
function splitHead(text: string): { headers: Record<string, string>; rest: string } {
  const end = /\r?\n\r?\n/.exec(text);
  const head = end === null ? text : text.slice(0, end.index);
  const rest = end === null ? '' : text.slice(end.index + end[0].length);
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, rest };
}

/** The parts of a multipart body (what lies between its delimiters, the preamble and epilogue left out). */
function partsOf(text: string, boundary: string): Part[] {
  const delimiter = `--${boundary}`;
  const pieces = text.split(delimiter);
  const parts: Part[] = [];
  for (const piece of pieces.slice(1)) {
    if (piece.startsWith('--')) break;
    // The line break before the next delimiter belongs to the delimiter.
    const content = piece.replace(/^[ \t]*\r?\n/, '').replace(/\r?\n$/, '');
    const { headers, rest } = splitHead(content);
    parts.push({ headers, content: rest });
  }
  return parts;
}

/** An `application/http` part: the status line, headers and body of one answer. */
function answerOf(part: Part): BatchAnswer | undefined {
  const statusLine = /^HTTP\/\d(?:\.\d)?\s+(\d{3})/.exec(part.content);
  if (statusLine === null) return undefined;
  const afterStatus = part.content.slice(part.content.search(/\r?\n/) + 1);
  const { headers, rest } = splitHead(/\r?\n/.test(part.content) ? afterStatus : '');
  return { status: Number(statusLine[1]), headers, body: parsedBody(rest), text: rest };
}

/**
 * Each changeset's outcome from a multipart batch answer, by position (batch-parts.ts
 * ChangesetReading): undefined for a changeset past the end of the answer (a service that stopped
 * at the first failure), `unknown` for one whose part cannot be read. Null when the body is not a
 * multipart batch answer.
 */
export function readMultipartBatch(
  contentType: string | null,
  text: string,
  changesets: ReadonlyArray<readonly BatchRequest[]>,
): ChangesetReading[] | null {
  const boundary = boundaryOf(contentType);
  if (boundary === undefined) return null;
  const parts = partsOf(text, boundary);
  let firstContentId = 1;
  return changesets.map((requests, index) => {
    const ids = requests.map((_, offset) => String(firstContentId + offset));
    firstContentId += requests.length;
    const part = parts[index];
    if (part === undefined) return undefined;
    const inner = boundaryOf(part.headers['content-type']);
    if (inner === undefined) {
      const failure = answerOf(part);
      if (failure === undefined) return 'unknown';
      const at = ids.indexOf(part.headers['content-id'] ?? '');
      return failure.status >= 400 ? { ok: false, failure, request: requests[Math.max(at, 0)]! } : changesetOutcome(requests, [failure]);
    }
    const answers: Array<BatchAnswer | undefined> = requests.map(() => undefined);
    partsOf(part.content, inner).forEach((answerPart, position) => {
      const at = ids.indexOf(answerPart.headers['content-id'] ?? '');
      answers[at >= 0 ? at : position] = answerOf(answerPart);
    });
    return changesetOutcome(requests, answers);
  });
}
