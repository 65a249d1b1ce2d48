/**
 * The `Link` header (RFC 8288 §3), which APIs use for paging: `<https://h/items?page=2>;
 * rel="next", <https://h/items?page=9>; rel="last"`. Read by a small scanner over its grammar
 *
 *   Link       = #link-value
 *   link-value = "<" URI-Reference ">" *( OWS ";" OWS link-param )
 *   link-param = token BWS [ "=" BWS ( token / quoted-string ) ]
 *
 * rather than by splitting on commas, which URLs and quoted strings may hold. A malformed
 * link-value is passed over up to the next comma outside `<…>` and quotes; the others still count.
 */

/** One link of the header. */
export interface LinkValue {
  /** The target as written: resolve it against the answer's URL (`linkTarget` does). */
  target: string;
  /** Relation types of `rel`, lower-cased (`rel="next last"` → ['next', 'last']). */
  rel: string[];
  /** Every parameter by lower-cased name, the first occurrence kept (RFC 8288 §3.3). */
  params: Record<string, string>;
}

/** The links of a `Link` header value. */
export function parseLinkHeader(value: string): LinkValue[] {
  const scanner = new Scanner(value);
  const links: LinkValue[] = [];
  while (!scanner.done()) {
    const link = scanner.linkValue();
    if (link !== undefined) links.push(link);
    scanner.skipPast(',');
  }
  return links;
}

/**
 * The target of the first link with relation `rel` (e.g. 'next'), resolved against `base` (the
 * URL of the answer that carried it); undefined when there is none.
 */
export function linkTarget(header: string | null | undefined, rel: string, base: URL | string): string | undefined {
  if (!header) return undefined;
  const link = parseLinkHeader(header).find((candidate) => candidate.rel.includes(rel.toLowerCase()));
  if (link === undefined) return undefined;
  try {
    return new URL(link.target, base).href;
  } catch {
    return undefined;
  }
}

const tokenChar = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;

class Scanner {
  private at = 0;

  constructor(private readonly text: string) {}

  done(): boolean {
    this.skipSpace();
    return this.at >= this.text.length;
  }

  /** One link-value, or undefined (and the position left inside it) when it is malformed. */
  linkValue(): LinkValue | undefined {
    this.skipSpace();
    if (this.text[this.at] !== '<') return undefined;
    const close = this.text.indexOf('>', this.at);
    if (close < 0) return undefined;
    const target = this.text.slice(this.at + 1, close).trim();
    this.at = close + 1;
    const params: Record<string, string> = {};
    for (;;) {
      this.skipSpace();
      if (this.text[this.at] !== ';') break;
      this.at += 1;
      this.skipSpace();
      const name = this.token().toLowerCase();
      if (name === '') return undefined;
      this.skipSpace();
      let paramValue = '';
      if (this.text[this.at] === '=') {
        this.at += 1;
        this.skipSpace();
        paramValue = this.text[this.at] === '"' ? this.quotedString() : this.token();
      }
      if (!(name in params)) params[name] = paramValue;
    }
    const rel = (params.rel ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    return { target, rel, params };
  }

  /** Moves past the next `stop` outside `<…>` and quoted strings (or to the end). */
  skipPast(stop: string): void {
    while (this.at < this.text.length) {
      const c = this.text[this.at]!;
      if (c === '"') this.quotedString();
      else if (c === '<') this.at = this.text.includes('>', this.at) ? this.text.indexOf('>', this.at) + 1 : this.text.length;
      else {
        this.at += 1;
        if (c === stop) return;
      }
    }
  }

  private token(): string {
    const start = this.at;
    while (this.at < this.text.length && tokenChar.test(this.text[this.at]!)) this.at += 1;
    return this.text.slice(start, this.at);
  }

  /** A quoted-string from its opening quote, with `\x` read as x (RFC 9110 §5.6.4). */
  private quotedString(): string {
    let value = '';
    this.at += 1;
    while (this.at < this.text.length) {
      const c = this.text[this.at]!;
      this.at += 1;
      if (c === '"') return value;
      if (c === '\\' && this.at < this.text.length) {
        value += this.text[this.at];
        this.at += 1;
      } else value += c;
    }
    return value;
  }

  private skipSpace(): void {
    while (this.text[this.at] === ' ' || this.text[this.at] === '\t') this.at += 1;
  }
}
