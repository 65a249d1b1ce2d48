/**
 * What the connectors speaking HTTP (`odata`, `http`) use from this folder: the shared part of
 * their `connection:` schema and its settings, the client, its answers, and the readers of the
 * `Link` and `Retry-After` headers. Nothing else here is meant to be imported from outside; the
 * behaviour of the client is described at the top of web-client.ts.
 */
export { WebClient, type HttpMethod, type WebClientOptions, type WebRequest } from './web-client.js';
export { WebResponse } from './web-response.js';
export { UpstreamAnswer } from './web-errors.js';
export type { QueryParameters } from './request-url.js';
export {
  webConnectionProperties,
  webConnectionRequired,
  webSettings,
  type OAuth2Auth,
  type WebAuth,
  type WebSettings,
} from './web-settings.js';
export { linkTarget, parseLinkHeader, type LinkValue } from './link-header.js';
export { parseRetryAfter } from './retry-timing.js';
