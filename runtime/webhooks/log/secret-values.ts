/**
 * Credentials found by their value, wherever they stand in a text — a header, a JSON string, a
 * query value, the raw body, a ticker message — and replaced by `[redacted]`.
 *
 * Two kinds of value, found two ways:
 * - Secrets the definitions hold as text (the webhook's secret, its signing secret, the network
 *   client secret, the meta verify token): every occurrence, also inside a longer string.
 * - Bearer tokens (ApiClient tokens, SYNCLINE_ADMIN_TOKEN), which the runtime keeps only as
 *   SHA-256 digests, so they can be recognised but not searched for: a text's words are hashed and
 *   compared with the digests. A word is the whole text, or a piece of it between white space,
 *   quotes, brackets and the punctuation of URLs and headers, cut at several levels (base64's `/`,
 *   `+` and `=` belong to a word at one level and part words at the next), so a token is found
 *   alone, after `Bearer `, in `?token=…&`, in a JSON string or in a sentence; and within a run
 *   of token characters, every stretch between `- . _ ~ + / =`, so `key-<token>.v2` gives the
 *   token up too. A token glued to other letters or digits without any of these is not found, nor
 *   one shorter than `minTokenLength` inside a longer text.
 */
import { hash } from 'node:crypto';

export const redacted = '[redacted]';

/** Splitters whose pieces are candidate tokens; see the file comment. */
const splitters = [/\s+/, /[\s"'`<>()[\]{},;|\\]+/, /[\s"'`<>()[\]{},;|\\&?#=:@]+/];
/** Runs of token characters (their stretches include every piece a finer splitter would cut), and the marks inside them where a glued prefix or suffix may end. */
const tokenRun = /[A-Za-z0-9._~+/=-]+/g;
const innerMark = /[-._~+/=]/g;
const onlyTokenCharacters = /^[A-Za-z0-9._~+/=-]*$/;
/**
 * Pieces shorter than this are not hashed (a text as a whole always is): hashing every short word
 * of a payload cost more than the rest of logging it, and a bearer token is longer (a generated
 * admin token has 32 characters). A shorter token is found only as a whole value.
 */
export const minTokenLength = 12;
/** A run with more parts than this is judged by its pieces only (a run's stretches grow with the square of its parts). */
const maxParts = 48;

export class SecretValues {
  /** Longest first, so a secret containing another is replaced whole. */
  readonly #literals: readonly string[];
  /** Hex SHA-256 digests of tokens. */
  readonly #digests: ReadonlySet<string>;

  constructor(literals: Iterable<string | undefined>, tokenDigests: Iterable<Buffer>) {
    this.#literals = [...new Set([...literals].filter((value): value is string => typeof value === 'string' && value !== ''))].sort((a, b) => b.length - a.length);
    this.#digests = new Set([...tokenDigests].map((digest) => digest.toString('hex')));
  }

  /**
   * `text` with every secret and token replaced. `judged` remembers pieces already hashed: pass
   * one map for all the texts of one entry, whose words repeat (it is not kept beyond).
   */
  redact(text: string, judged?: Map<string, boolean>): string {
    let out = text;
    for (const literal of this.#literals) if (out.includes(literal)) out = out.split(literal).join(redacted);
    if (this.#digests.size === 0) return out;
    const found = this.#tokensIn(out, judged ?? new Map());
    // Longest first: a token that contains another is replaced whole.
    for (const token of [...found].sort((a, b) => b.length - a.length)) out = out.split(token).join(redacted);
    return out;
  }

  /** Whether `text` holds a secret or token. */
  finds(text: string, judged: Map<string, boolean> = new Map()): boolean {
    return this.#literals.some((literal) => text.includes(literal)) || (this.#digests.size > 0 && this.#tokensIn(text, judged).size > 0);
  }

  #tokensIn(text: string, judged: Map<string, boolean>): Set<string> {
    const found = new Set<string>();
    const judge = (piece: string) => {
      if (piece.length < minTokenLength && piece !== text) return;
      let token = judged.get(piece);
      if (token === undefined) {
        token = this.#digests.has(hash('sha256', piece, 'hex'));
        judged.set(piece, token);
      }
      if (token) found.add(piece);
    };
    judge(text);
    if (text.length <= minTokenLength) return found;
    // A text of token characters alone (most values and names) is its one run: no splitter cuts it.
    if (!onlyTokenCharacters.test(text)) for (const splitter of splitters) for (const piece of text.split(splitter)) if (piece !== '') judge(piece);
    for (const [run] of text.matchAll(tokenRun)) if (run.length >= minTokenLength) for (const stretch of stretchesOf(run)) judge(stretch);
    return found;
  }
}

/** Every stretch of `run` that starts and ends at a part boundary (`a-b.c` → a-b.c, a-b, b.c, a, b, c). */
function stretchesOf(run: string): string[] {
  const starts = [0];
  const ends: number[] = [];
  for (const mark of run.matchAll(innerMark)) {
    ends.push(mark.index);
    starts.push(mark.index + 1);
  }
  ends.push(run.length);
  if (starts.length > maxParts) return [run];
  const stretches: string[] = [];
  for (let first = 0; first < starts.length; first++) {
    for (let last = first; last < ends.length; last++) if (ends[last]! > starts[first]!) stretches.push(run.slice(starts[first], ends[last]));
  }
  return stretches;
}

/** No value is secret (a caller that knows of none). */
export const noSecretValues = new SecretValues([], []);
