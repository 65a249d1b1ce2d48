/**
 * An answer of the system, its body already read (within connection.maxResponseBytes): callers
 * look at `status` and decide — a 404 for one record is "not found", not an error — and turn what
 * they do not take into the client's error with `failure()`.
 */
import type { ConnectorError } from '../connector-error.js';
import { parseExactJson } from '../records/exact-json.js';
import type { Secrets } from './secrets.js';
import { answerError, excerpt, notJson, UpstreamAnswer, type RequestTarget } from './web-errors.js';

const decoder = new TextDecoder();

export class WebResponse {
  private parsed: { value: unknown } | undefined;

  constructor(
    readonly status: number,
    readonly headers: Headers,
    /** Where the answer came from (after redirects): resolve relative links against it. */
    readonly url: URL,
    private readonly target: RequestTarget,
    private readonly body: Uint8Array,
    private readonly secrets: Secrets,
  ) {}

  /** A 2xx status. */
  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** The body as UTF-8 text ('' when there is none). */
  text(): string {
    return decoder.decode(this.body);
  }

  /** The body parsed as JSON; a ConnectorError ('unavailable') when it is not JSON. */
  json(): unknown {
    if (this.parsed === undefined) {
      try {
        this.parsed = { value: parseExactJson(this.text()) };
      } catch {
        throw notJson(this.target, this.status, upstreamAnswer(this.target, this.status, this.body, this.secrets));
      }
    }
    return this.parsed.value;
  }

  /**
   * The ConnectorError for this answer when the caller does not take it: 'rejected' for a write
   * refused with 400, 409, 412 or 422, 'unavailable' for anything else. The message names the
   * system, method, path and status; the body is in its `cause`, for the log only.
   */
  failure(): ConnectorError {
    return answerError(this.target, this.status, upstreamAnswer(this.target, this.status, this.body, this.secrets));
  }
}

/** The `cause` for an answer: its status and the start of its body, secrets taken out. */
export function upstreamAnswer(target: RequestTarget, status: number, body: Uint8Array, secrets: Secrets): UpstreamAnswer {
  return new UpstreamAnswer(target, status, excerpt(secrets.redact(decoder.decode(body))));
}

/**
 * Reads at most `cap` bytes of an answer's body as it streams in. `over`: there was more, and the
 * rest was not read — the stream is cancelled, so a huge or endless body never fills memory. The
 * count is of the bytes after decompression: a small gzip answer cannot hide a large body.
 */
export async function readBody(response: Response, cap: number): Promise<{ bytes: Uint8Array; over: boolean }> {
  if (response.body === null) return { bytes: new Uint8Array(0), over: false };
  const declared = Number(response.headers.get('content-length'));
  if (response.headers.get('content-encoding') === null && declared > cap) {
    await response.body.cancel().catch(() => undefined);
    return { bytes: new Uint8Array(0), over: true };
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (length + value.byteLength > cap) {
      chunks.push(value.subarray(0, cap - length));
      // Cancelling closes the connection; whether that goes well changes nothing for the caller.
      await reader.cancel().catch(() => undefined);
      return { bytes: Buffer.concat(chunks), over: true };
    }
    chunks.push(value);
    length += value.byteLength;
  }
  return { bytes: Buffer.concat(chunks), over: false };
}
