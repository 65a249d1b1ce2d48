/**
 * The credentials of one client, to take out of anything kept for the log: a server may echo a
 * request back in an error page (the Authorization header, a form with the client secret), and
 * the log must not become a second place where secrets live.
 */

/** Shorter values are left alone: blanking every "ab" would garble the text and protect nothing. */
const shortest = 4;
/** Access tokens come and go; the latest few are enough to recognise an echo of a recent request. */
const tokensKept = 4;

export class Secrets {
  private readonly fixed = new Set<string>();
  private readonly tokens: string[] = [];

  /** Values configured once: passwords, keys, client secrets and the headers made from them. */
  add(...values: Array<string | undefined>): void {
    for (const value of values) for (const form of forms(value)) this.fixed.add(form);
  }

  /** A token obtained at run time (an OAuth2 access token). */
  addToken(token: string): void {
    this.tokens.push(token);
    if (this.tokens.length > tokensKept) this.tokens.shift();
  }

  /** `text` with every known secret replaced by `[redacted]`. */
  redact(text: string): string {
    const all = [...this.fixed, ...this.tokens.flatMap(forms)].sort((a, b) => b.length - a.length);
    return all.reduce((redacted, secret) => redacted.replaceAll(secret, '[redacted]'), text);
  }
}

/** A secret as it may come back: as is, and percent-encoded as in a form or a URL. */
function forms(value: string | undefined): string[] {
  if (value === undefined || value.length < shortest) return [];
  const encoded = encodeURIComponent(value);
  const formEncoded = encoded.replace(/%20/g, '+');
  return [...new Set([value, encoded, formEncoded])];
}
