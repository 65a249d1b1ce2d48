/**
 * Where a request goes. A path is resolved below baseUrl, keeping baseUrl's own path (baseUrl
 * `http://h/odata/v4/crm/` and `Customers` → `/odata/v4/crm/Customers`, a leading `/` included).
 * An absolute URL — a server's next link — is followed only on baseUrl's origin: the client sends
 * credentials with every request, and they must never reach another host.
 */
import { ConnectorError } from '../connector-error.js';

/** Query parameters: undefined ones are left out, an array repeats its name. */
export type QueryParameters = Readonly<Record<string, string | number | boolean | undefined | ReadonlyArray<string | number | boolean>>>;

/** The URL of `target` (a path below `baseUrl`, or an absolute URL of its origin) with `query` appended. */
export function requestUrl(systemId: string, baseUrl: URL, target: string, query?: QueryParameters): URL {
  const url = parsedUrl(systemId, isAbsolute(target) ? target : target.replace(/^\/+/, ''), baseUrl);
  if (url.origin !== baseUrl.origin) throw otherOriginError(systemId);
  url.hash = '';
  const extra = queryText(query);
  if (extra !== '') url.search = url.search === '' || url.search === '?' ? extra : `${url.search.slice(1)}&${extra}`;
  return url;
}

/** Where a redirect's Location leads, refused like any other URL of another origin. */
export function redirectUrl(systemId: string, from: URL, location: string): URL {
  const url = parsedUrl(systemId, location, from);
  if (url.origin !== from.origin) {
    throw new ConnectorError(
      'unavailable',
      `system '${systemId}' redirected ${displayPath(from)} to another host; Syncline follows redirects only within the origin of connection.baseUrl, which receives the credentials: point baseUrl at where the API now lives`,
      { details: { system: systemId } },
    );
  }
  return url;
}

/** The path of a URL for messages: never its query, which may hold keys or personal data. */
export function displayPath(url: URL): string {
  return url.pathname;
}

/** `new URL`, with a URL that does not parse (a server's broken link) as the system's failure, not a TypeError. */
function parsedUrl(systemId: string, target: string, base: URL): URL {
  try {
    return new URL(target, base);
  } catch (error) {
    throw new ConnectorError('unavailable', `system '${systemId}' pointed to a URL that cannot be read`, {
      cause: error,
      details: { system: systemId },
    });
  }
}

function isAbsolute(target: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(target);
}

function otherOriginError(systemId: string): ConnectorError {
  return new ConnectorError(
    'unavailable',
    `system '${systemId}' pointed to a URL on another host, scheme or port than connection.baseUrl; Syncline sends the system's credentials only to baseUrl's origin, so it did not follow it`,
    { details: { system: systemId } },
  );
}

/**
 * The query escaped only where a character would change its meaning (`&`, `=`, `+`, `#`, `%`,
 * spaces, non-ASCII): `$filter=Name eq 'x'` goes out as `$filter=Name%20eq%20'x'`, readable in a
 * server's log, and reaches servers that compare parameter names without decoding them. Spaces
 * are `%20`, never the form encoding's `+`, which not every server reads as a space.
 */
function queryText(query: QueryParameters | undefined): string {
  if (query === undefined) return '';
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) parts.push(`${escape(name)}=${escape(String(one))}`);
  }
  return parts.join('&');
}

function escape(text: string): string {
  return encodeURIComponent(text).replace(/%(24|2C|3A|40|2F)/gi, (escaped) => decodeURIComponent(escaped));
}
