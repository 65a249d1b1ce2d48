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
 *
 * Texts carried in URLs and forms hold both kinds percent-encoded: a percent escape (`%3D`,
 * `%20`) cuts words as the character it stands for would, and also as a mark of its own (so
 * `x=%3D<token>` and `a%20<token>` give the token up), and a token or secret that is itself
 * encoded (`a%2Bb%2F…` for `a+b/…`) is found and replaced in its encoded form.
 */
import { hash } from 'node:crypto';

export const redacted = '[redacted]';

/** Splitters whose pieces are candidate tokens; see the file comment. */
const splitters = [/\s+/, /[\s"'`<>()[\]{},;|\\]+/, /[\s"'`<>()[\]{},;|\\&?#=:@]+/];
/** Runs of token characters (their stretches include every piece a finer splitter would cut), and the marks inside them where a glued prefix or suffix may end. */
const tokenRun = /[A-Za-z0-9._~+/=-]+/g;
const innerMark = /[-._~+/=]/g;
const onlyTokenCharacters = /^[A-Za-z0-9._~+/=-]*$/;
/** A percent escape; runs of token characters and escapes; one unit of such a run. */
const percentEscape = /%[0-9A-Fa-f]{2}/;
const escapedRun = /(?:[A-Za-z0-9._~+/=-]|%[0-9A-Fa-f]{2})+/g;
const escapedUnit = /%[0-9A-Fa-f]{2}|[^%]/g;
const tokenCharacter = /^[A-Za-z0-9._~+/=-]$/;
const markCharacter = /^[-._~+/=]$/;
/**
 * Pieces shorter than this are not hashed (a text as a whole always is): hashing every short word
 * of a payload cost more than the rest of logging it, and a bearer token is longer (a generated
 * admin token has 32 characters). A shorter token is found only as a whole value.
 */
export const minTokenLength = 12;
/** A run with more parts than this is judged by its pieces only (a run's stretches grow with the square of its parts). */
const maxParts = 48;

export class SecretValues {
  /** Patterns of the literal secrets (literalPattern), longest secret first, so a secret containing another is replaced whole. */
  readonly #literals: readonly RegExp[];
  /** Hex SHA-256 digests of tokens. */
  readonly #digests: ReadonlySet<string>;

  constructor(literals: Iterable<string | undefined>, tokenDigests: Iterable<Buffer>) {
    const given = [...literals].filter((value): value is string => typeof value === 'string' && value !== '');
    this.#literals = [...new Set(given)].sort((a, b) => b.length - a.length).map(literalPattern);
    this.#digests = new Set([...tokenDigests].map((digest) => digest.toString('hex')));
  }

  /**
   * `text` with every secret and token replaced. `judged` remembers pieces already hashed: pass
   * one map for all the texts of one entry, whose words repeat (it is not kept beyond).
   */
  redact(text: string, judged?: Map<string, boolean>): string {
    let out = text;
    for (const literal of this.#literals) out = out.replace(literal, redacted);
    if (this.#digests.size === 0) return out;
    const found = this.#tokensIn(out, judged ?? new Map());
    // Longest first: a token that contains another is replaced whole.
    for (const token of [...found].sort((a, b) => b.length - a.length)) out = out.split(token).join(redacted);
    return out;
  }

  /** Whether `text` holds a secret or token. */
  finds(text: string, judged: Map<string, boolean> = new Map()): boolean {
    return (
      this.#literals.some((literal) => text.search(literal) !== -1) || (this.#digests.size > 0 && this.#tokensIn(text, judged).size > 0)
    );
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
    if (!onlyTokenCharacters.test(text))
      for (const splitter of splitters) for (const piece of text.split(splitter)) if (piece !== '') judge(piece);
    for (const [run] of text.matchAll(tokenRun)) if (run.length >= minTokenLength) for (const stretch of stretchesOf(run)) judge(stretch);
    if (percentEscape.test(text)) {
      for (const [run] of text.matchAll(escapedRun)) {
        if (run.length < minTokenLength || !percentEscape.test(run)) continue;
        // Judged decoded, replaced as the text has it.
        for (const { decoded, encoded } of escapedStretchesOf(run)) {
          if (decoded.length < minTokenLength && encoded !== text) continue;
          let token = judged.get(decoded);
          if (token === undefined) {
            token = this.#digests.has(hash('sha256', decoded, 'hex'));
            judged.set(decoded, token);
          }
          if (token) found.add(encoded);
        }
      }
    }
    return found;
  }
}

/**
 * A pattern finding `literal` as it is and as URLs and forms encode it: each character other
 * than a letter or digit also as its escape (hex digits in either case) and a space also as `+`,
 * in any mix, since clients differ in which characters they escape.
 */
function literalPattern(literal: string): RegExp {
  let source = '';
  for (const char of literal) {
    const alternatives = [escapeRegExp(char)];
    let encoded = char;
    try {
      // Forms escape some marks encodeURIComponent leaves (`!`, `~`, `(`): every ASCII mark may come escaped.
      encoded = /^[A-Za-z0-9]$/.test(char)
        ? char
        : char.charCodeAt(0) < 0x80
          ? `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`
          : encodeURIComponent(char);
    } catch {
      // A lone surrogate has no encoding; it is searched as it is.
    }
    if (encoded !== char)
      alternatives.push(encoded.replace(/[0-9A-F]/g, (digit) => (/[A-F]/.test(digit) ? `[${digit}${digit.toLowerCase()}]` : digit)));
    if (char === ' ') alternatives.push('\\+');
    source += alternatives.length === 1 ? alternatives[0] : `(?:${alternatives.join('|')})`;
  }
  return new RegExp(source, 'gu');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The stretches of a run holding percent escapes, each decoded and as written. A stretch may
 * start or end at every escape (an escape is a mark of its own), and after or before a mark
 * (decoded or not); an escape that stands for a character no token has (`%20`, `%26`, a byte of
 * a multi-byte character) ends every stretch there.
 */
function escapedStretchesOf(run: string): Array<{ decoded: string; encoded: string }> {
  const stretches: Array<{ decoded: string; encoded: string }> = [];
  let units: Array<{ text: string; char: string; escape: boolean }> = [];
  const flush = () => {
    if (units.length > 0) stretches.push(...unitStretches(units));
    units = [];
  };
  for (const [text] of run.matchAll(escapedUnit)) {
    const escape = text.length === 3;
    const char = escape ? String.fromCharCode(parseInt(text.slice(1), 16)) : text;
    if (tokenCharacter.test(char)) units.push({ text, char, escape });
    else flush();
  }
  flush();
  return stretches;
}

function unitStretches(units: ReadonlyArray<{ text: string; char: string; escape: boolean }>): Array<{ decoded: string; encoded: string }> {
  const starts = new Set([0]);
  const ends = new Set([units.length]);
  units.forEach((unit, index) => {
    if (unit.escape || markCharacter.test(unit.char)) {
      ends.add(index);
      starts.add(index + 1);
    }
    if (unit.escape) {
      starts.add(index);
      ends.add(index + 1);
    }
  });
  const stretch = (first: number, last: number) => {
    const part = units.slice(first, last);
    return { decoded: part.map((unit) => unit.char).join(''), encoded: part.map((unit) => unit.text).join('') };
  };
  if (starts.size > maxParts) return [stretch(0, units.length)];
  const out: Array<{ decoded: string; encoded: string }> = [];
  for (const first of starts) for (const last of ends) if (last > first) out.push(stretch(first, last));
  return out;
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
    for (let last = first; last < ends.length; last++)
      if (ends[last]! > starts[first]!) stretches.push(run.slice(starts[first], ends[last]));
  }
  return stretches;
}

/** No value is secret (a caller that knows of none). */
export const noSecretValues = new SecretValues([], []);
