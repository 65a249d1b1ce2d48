/**
 * What never reaches the call log, the console or `syncline webhook test`: credentials. One rule
 * for every part of a call — request headers, query parameters, form fields and JSON at any depth,
 * the response body, the ticker:
 *
 * - by name (secret-names.ts): the value under a credential name is replaced by `[redacted]`
 *   whatever it is (a string, a number, an object); the name stays, so an entry still shows that
 *   a password was sent;
 * - by value (secret-values.ts): the webhook's own secrets and every configured bearer token are
 *   replaced wherever they occur, also inside longer strings and in names.
 *
 * A redaction notes where it took something out of the data or the query (`data.user.password`):
 * a request with such holes is not the request that was sent, so it cannot be replayed.
 */
import type { Snapshot, WebhookEntry } from '../../../definitions/snapshot.js';
import type { WebhookDefinition } from '../../../definitions/types.js';
import { isSecretName } from './secret-names.js';
import { noSecretValues, redacted, SecretValues } from './secret-values.js';

export { redacted } from './secret-values.js';

export interface Redaction {
  /** More names to redact, lower-case: the webhook's `logRedact` and its signature header. */
  readonly names: ReadonlySet<string>;
  readonly values: SecretValues;
}

/** The built-in name rule alone: for callers that know no webhook and no token. */
export const namesOnly: Redaction = Object.freeze({ names: new Set<string>(), values: noSecretValues });

/**
 * Deeper than this, a value is not walked (a stack must not overflow on a log): redactValue throws
 * a RangeError, as JSON.stringify would, and the call log keeps a note instead (record-call.ts).
 * Request bodies nest at most 30 levels (read-body.ts); what is deeper came from elsewhere.
 */
const maxDepth = 200;
/** Most redacted places an entry lists. */
const maxNoted = 50;

/** The redaction of one webhook's calls: its names and secrets, and the tokens of `tokenDigests`. */
export function webhookRedaction(
  definition: WebhookDefinition,
  signatureHeader: string | undefined,
  tokenDigests: Iterable<Buffer>,
): Redaction {
  const names = new Set(
    [...(definition.logRedact ?? []), ...(signatureHeader === undefined ? [] : [signatureHeader])].map((name) => name.toLowerCase()),
  );
  const literals = [definition.secret, definition.signature?.secret, definition.challenge?.secret, definition.challenge?.verifyToken];
  return Object.freeze({ names, values: new SecretValues(literals, tokenDigests) });
}

/** The digests of every bearer token: the snapshot's ApiClients and the admin token. */
export function tokenDigestsOf(snapshot: Snapshot, adminTokenHash: Buffer | undefined): Buffer[] {
  return [
    ...[...snapshot.apiClients.values()].map((client) => client.tokenHash),
    ...(adminTokenHash === undefined ? [] : [adminTokenHash]),
  ];
}

const cache = new WeakMap<WebhookEntry, { admin: Buffer | undefined; redaction: Redaction }>();

/** `webhookRedaction` of an entry of `snapshot`, built once per entry (entries are per snapshot). */
export function redactionOf(
  entry: WebhookEntry,
  snapshot: Snapshot,
  signatureHeader: string | undefined,
  adminTokenHash: Buffer | undefined,
): Redaction {
  const cached = cache.get(entry);
  if (cached && cached.admin === adminTokenHash) return cached.redaction;
  const redaction = webhookRedaction(entry.definition, signatureHeader, tokenDigestsOf(snapshot, adminTokenHash));
  cache.set(entry, { admin: adminTokenHash, redaction });
  return redaction;
}

type Values = Readonly<Record<string, string | string[] | undefined>>;

/** Headers with credential names and values replaced. Header redactions are not noted: a replay sends its own secret and signature. */
export function redactHeaders(headers: Values, redaction: Redaction = namesOnly): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = (one: string) => redaction.values.redact(one);
    define(out, text(name), isSecretName(name, redaction.names) ? redacted : Array.isArray(value) ? value.map(text) : text(value));
  }
  return out;
}

/**
 * `value` with every credential replaced, at any depth, as a new value (the request stays as the
 * action saw it); each place something was taken out is pushed to `noted` as a path under `at`.
 */
export function redactValue(value: unknown, redaction: Redaction = namesOnly, at = '', noted: string[] = []): unknown {
  return walk(value, { redaction, noted, judged: new Map(), done: new Map() }, at, 0);
}

/** Only values, no names: for texts and details of our own making (ticker messages). */
export function redactStrings(value: unknown, redaction: Redaction = namesOnly, depth = 0): unknown {
  if (typeof value === 'string') return redaction.values.redact(value);
  if (value === null || typeof value !== 'object' || depth > maxDepth) return value;
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redaction, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) define(out, key, redactStrings(item, redaction, depth + 1));
  return out;
}

/** A ticker's redaction (ticker.ts): values only, in the message and its details. */
export function tickerRedaction(
  redaction: Redaction,
): (message: string, data?: Record<string, unknown>) => [string, Record<string, unknown>?] {
  return (message, data) => [
    redaction.values.redact(message),
    data === undefined ? undefined : (redactStrings(data, redaction) as Record<string, unknown>),
  ];
}

interface Walk {
  redaction: Redaction;
  noted: string[];
  /** Pieces already hashed in this value (secret-values.ts). */
  judged: Map<string, boolean>;
  /** Texts already redacted in this value: names and many values repeat. */
  done: Map<string, string>;
}

function walk(value: unknown, w: Walk, at: string, depth: number): unknown {
  const redact = (text: string) => {
    let out = w.done.get(text);
    if (out === undefined) w.done.set(text, (out = w.redaction.values.redact(text, w.judged)));
    return out;
  };
  if (typeof value === 'string') return changed(value, redact(value), at, w.noted);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    const text = String(value);
    return redact(text) === text ? value : note(at, w.noted);
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= maxDepth) throw new RangeError(`the value is nested deeper than ${maxDepth} levels`);
  if (Array.isArray(value)) return value.map((item, index) => walk(item, w, `${at}[${index}]`, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // The path is built from the redacted name: a noted place must not carry what it notes.
    let name = redact(key);
    for (let n = 2; name !== key && Object.hasOwn(out, name); n++) name = `${redacted} ${n}`;
    const place = at === '' ? name : `${at}.${name}`;
    if (name !== key) note(place, w.noted);
    define(out, name, isSecretName(key, w.redaction.names) ? note(place, w.noted) : walk(item, w, place, depth + 1));
  }
  return out;
}

function changed(before: string, after: string, at: string, noted: string[]): string {
  if (after !== before) note(at, noted);
  return after;
}

function note(at: string, noted: string[]): string {
  if (noted.length < maxNoted && !noted.includes(at)) noted.push(at);
  return redacted;
}

/** Defined, not assigned: a key named `__proto__` stays an ordinary property. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Whether a raw body holds a secret or token, as it is or escaped (JSON's \uXXXX, a form's %XX):
 * the parsed data may have lost a copy the raw text still has (a duplicate JSON key). Names are
 * judged on the parsed data.
 */
export function bodyHoldsSecret(raw: Buffer, redaction: Redaction): boolean {
  const text = raw.toString('utf8');
  const unescaped = text.replace(/\\u([0-9a-fA-F]{4})|\\(["\\/bfnrt])/g, (_, code: string | undefined, char: string) =>
    code === undefined
      ? (({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Record<string, string>)[char] ?? char)
      : String.fromCharCode(parseInt(code, 16)),
  );
  let decoded = text;
  try {
    decoded = decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    // Not URL-encoded text: the other two forms are judged.
  }
  const judged = new Map<string, boolean>();
  return [...new Set([text, unescaped, decoded])].some((form) => redaction.values.finds(form, judged));
}
