/**
 * Sending changesets in one `$batch` request, in the format the service takes. connection.batch
 * decides: `json` or `multipart` use that format; `never` sends no batch; `auto` learns the format
 * once per connection, before the first changeset goes: a batch holding only a read (`GET <entity
 * set>?$top=0`) in JSON first (compact, and read by position-free ids), then in multipart (which
 * every v4 service must take). A service that refuses both — it answers 404, 405, 406, 415, 501 or
 * a 400 — is remembered as taking none, and the caller sends request by request. The changesets
 * themselves go once, in the format learned: a service that wrote a JSON batch and still answered
 * 400 (a gateway failing the answer) had them sent again as multipart, and its creates made twice.
 *
 * `Prefer: odata.continue-on-error` asks the service to go on after a failed changeset; one that
 * stops anyway leaves the rest unanswered, and those changesets are sent again in another batch.
 * A changeset the answer speaks of without a readable outcome may have been written: it is never
 * sent again (a create would be made twice), and its outcome is an 'unavailable' error saying so.
 */
import { randomUUID } from 'node:crypto';
import { ConnectorError } from '../../connector-error.js';
import { parseExactJson } from '../../records/exact-json.js';
import type { WebClient, WebResponse } from '../../web/index.js';
import type { BatchRequest, ChangesetOutcome, ChangesetReading } from './batch-parts.js';
import { JSON_BATCH_TYPE, jsonBatchBody, readJsonBatch } from './json-batch.js';
import { multipartBatchBody, readMultipartBatch } from './multipart-batch.js';

export type BatchSetting = 'auto' | 'json' | 'multipart' | 'never';
type Format = 'json' | 'multipart';

/** Answers meaning "no batch of this format here", to a batch that only reads or to the first one of a set format. */
const REFUSED = new Set([400, 404, 405, 406, 415, 501]);

/** Most changesets in one batch request. */
export const MAX_CHANGESETS = 100;

export class BatchSender {
  /** The format the service took, or 'none' once it refused every one. */
  private learned: Format | 'none' | undefined;

  constructor(
    private readonly web: WebClient,
    private readonly setting: BatchSetting,
  ) {}

  /** Whether a batch may still be tried. */
  get usable(): boolean {
    return this.setting !== 'never' && this.learned !== 'none';
  }

  /**
   * Each changeset's outcome, in order — or the ConnectorError of one whose outcome the answer does
   * not say; undefined when the service takes no batch (nothing was sent that it processed), so the
   * caller sends the requests one by one.
   */
  async send(
    changesets: ReadonlyArray<readonly BatchRequest[]>,
    signal?: AbortSignal,
  ): Promise<Array<ChangesetOutcome | ConnectorError> | undefined> {
    const outcomes: Array<ChangesetOutcome | ConnectorError | undefined> = changesets.map(() => undefined);
    for (let start = 0; start < changesets.length; start += MAX_CHANGESETS) {
      let pending = changesets.slice(start, start + MAX_CHANGESETS).map((changeset, offset) => ({ changeset, at: start + offset }));
      while (pending.length > 0) {
        const answered = await this.sendOnce(
          pending.map((item) => item.changeset),
          signal,
        );
        if (answered === undefined) return undefined;
        for (const [index, item] of pending.entries()) {
          const reading = answered[index];
          outcomes[item.at] = reading === 'unknown' ? unknownOutcome(this.web) : reading;
        }
        const rest = pending.filter((item) => outcomes[item.at] === undefined);
        if (rest.length === pending.length) {
          throw new ConnectorError('unavailable', `system '${this.web.systemId}' answered a $batch without the outcome of its changesets`, {
            details: { system: this.web.systemId },
          });
        }
        pending = rest;
      }
    }
    return outcomes as Array<ChangesetOutcome | ConnectorError>;
  }

  private async sendOnce(
    changesets: ReadonlyArray<readonly BatchRequest[]>,
    signal?: AbortSignal,
  ): Promise<ChangesetReading[] | undefined> {
    if (this.setting === 'auto' && this.learned === undefined) this.learned = await this.learn(changesets[0]![0]!, signal);
    if (this.learned === 'none') return undefined;
    const format = this.learned ?? (this.setting as Format);
    const response = await this.post(format, changesets, signal);
    const outcomes = response.ok ? this.read(format, response, changesets) : null;
    if (outcomes !== null) {
      this.learned = format;
      return outcomes;
    }
    if (this.setting !== 'auto' && this.learned === undefined && REFUSED.has(response.status)) {
      throw new ConnectorError(
        'unavailable',
        `system '${this.web.systemId}' refused a $batch in ${format} format (HTTP ${response.status}); set connection.batch to auto or never in the System definition '${this.web.systemId}'`,
        { cause: response.failure().cause, details: { system: this.web.systemId, status: response.status } },
      );
    }
    // Anything else may come after the service wrote some of it: never sent again, in any format.
    throw response.ok ? unreadable(this.web, response) : response.failure();
  }

  /**
   * The format the service takes, asked with a batch that only reads (the entity set `request`
   * writes, none of it), or 'none' when it refuses both. A failure that is no refusal (the service
   * down, credentials refused) is thrown, and the next write asks again.
   */
  private async learn(request: BatchRequest, signal?: AbortSignal): Promise<Format | 'none'> {
    const entitySet = /^[^(/?]+/.exec(request.url)?.[0] ?? request.url;
    const read: BatchRequest = { method: 'GET', url: `${entitySet}?$top=0`, headers: { accept: 'application/json' } };
    for (const format of ['json', 'multipart'] as const) {
      const response = await this.postRead(format, read, signal);
      if (response.ok && this.answersBatch(format, response)) return format;
      if (!response.ok && !REFUSED.has(response.status)) throw response.failure();
    }
    return 'none';
  }

  /** Whether `response` is a batch answer of `format` at all, whatever its parts say. */
  private answersBatch(format: Format, response: WebResponse): boolean {
    if (format === 'multipart') return /^\s*multipart\/mixed\b/i.test(response.headers.get('content-type') ?? '');
    try {
      return Array.isArray((parseExactJson(response.text()) as { responses?: unknown } | null)?.responses);
    } catch {
      return false;
    }
  }

  /** A batch of one read, outside any changeset or atomicity group (those hold writes only). */
  private postRead(format: Format, read: BatchRequest, signal?: AbortSignal): Promise<WebResponse> {
    if (format === 'json') {
      return this.web.request({
        method: 'POST',
        path: '$batch',
        json: { requests: [{ id: 'read', method: 'GET', url: read.url, headers: read.headers }] },
        accept: JSON_BATCH_TYPE,
        ...(signal ? { signal } : {}),
      });
    }
    const boundary = `batch_${randomUUID()}`;
    const part = [
      'Content-Type: application/http',
      'Content-Transfer-Encoding: binary',
      '',
      `GET ${read.url} HTTP/1.1`,
      'Accept: application/json',
      '',
      '',
    ];
    return this.web.request({
      method: 'POST',
      path: '$batch',
      body: `--${boundary}\r\n${part.join('\r\n')}\r\n--${boundary}--\r\n`,
      headers: { 'content-type': `multipart/mixed; boundary=${boundary}` },
      accept: 'multipart/mixed',
      ...(signal ? { signal } : {}),
    });
  }

  private post(format: Format, changesets: ReadonlyArray<readonly BatchRequest[]>, signal?: AbortSignal): Promise<WebResponse> {
    const prefer = { prefer: 'odata.continue-on-error' };
    if (format === 'json') {
      return this.web.request({
        method: 'POST',
        path: '$batch',
        json: jsonBatchBody(changesets),
        headers: prefer,
        accept: JSON_BATCH_TYPE,
        ...(signal ? { signal } : {}),
      });
    }
    const { contentType, body } = multipartBatchBody(changesets);
    return this.web.request({
      method: 'POST',
      path: '$batch',
      body,
      headers: { ...prefer, 'content-type': contentType },
      accept: 'multipart/mixed',
      ...(signal ? { signal } : {}),
    });
  }

  private read(format: Format, response: WebResponse, changesets: ReadonlyArray<readonly BatchRequest[]>): ChangesetReading[] | null {
    if (format === 'multipart') return readMultipartBatch(response.headers.get('content-type'), response.text(), changesets);
    let body: unknown;
    try {
      body = parseExactJson(response.text());
    } catch {
      return null;
    }
    return readJsonBatch(body, changesets);
  }
}

/** A changeset the answer speaks of without saying what became of it: it may have been written. */
function unknownOutcome(web: WebClient): ConnectorError {
  return new ConnectorError(
    'unavailable',
    `system '${web.systemId}' answered a $batch without a readable outcome for this record; it may have been written, so it was not sent again: read the record to see whether it was`,
    { details: { system: web.systemId, outcome: 'unknown' } },
  );
}

function unreadable(web: WebClient, response: WebResponse): ConnectorError {
  return new ConnectorError(
    'unavailable',
    `system '${web.systemId}' answered a $batch (HTTP ${response.status}) with something that is not a batch answer; what it wrote is unknown`,
    {
      cause: response.failure().cause,
      details: { system: web.systemId, status: response.status },
    },
  );
}
