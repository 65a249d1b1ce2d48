/**
 * The headers that sign a request in, from `connection.auth`: Basic, Bearer, an API key in its
 * header, or an OAuth2 access token. Every secret they are made of is registered with `secrets`,
 * so that nothing kept for the log shows one.
 */
import { OAuth2Token, clientBasic, type TokenContext } from './oauth2-token.js';
import type { WebAuth } from './web-settings.js';

/** The auth headers of one request; `token` is the OAuth2 token used, to drop if the API refuses it. */
export interface SignedIn {
  headers: Readonly<Record<string, string>>;
  token?: string;
}

export class Credentials {
  private readonly fixed: SignedIn;
  private readonly oauth2: OAuth2Token | undefined;

  constructor(auth: WebAuth | undefined, context: TokenContext) {
    const { secrets } = context;
    switch (auth?.type) {
      case undefined:
        this.fixed = { headers: {} };
        break;
      case 'basic': {
        const encoded = Buffer.from(`${auth.username}:${auth.password}`).toString('base64');
        secrets.add(auth.password, encoded);
        this.fixed = { headers: { authorization: `Basic ${encoded}` } };
        break;
      }
      case 'bearer':
        secrets.add(auth.token);
        this.fixed = { headers: { authorization: `Bearer ${auth.token}` } };
        break;
      case 'apiKey':
        secrets.add(auth.value);
        this.fixed = { headers: { [auth.header.toLowerCase()]: auth.value } };
        break;
      case 'oauth2':
        secrets.add(auth.clientSecret, clientBasic(auth).slice('Basic '.length));
        this.fixed = { headers: {} };
        this.oauth2 = new OAuth2Token(auth, context);
        break;
    }
  }

  /** The headers for a request now (fetching an OAuth2 token when none is valid). */
  async signIn(signal?: AbortSignal): Promise<SignedIn> {
    if (this.oauth2 === undefined) return this.fixed;
    const token = await this.oauth2.get(signal);
    return { headers: { authorization: `Bearer ${token}` }, token };
  }

  /** The API refused `token`: the next sign-in fetches a new one. */
  renew(token: string): void {
    this.oauth2?.drop(token);
  }
}
