/**
 * The part of a System's `connection:` block that every connector speaking HTTP shares: where the
 * API lives, how to sign in, extra headers, retries, a request rate and the largest answer to
 * read. A connector spreads these JSON Schema fragments into its own connectionSchema:
 *
 *   connectionSchema: {
 *     type: 'object', additionalProperties: false,
 *     required: [...webConnectionRequired, …],
 *     properties: { ...webConnectionProperties, …its own },
 *   }
 *
 * and turns the validated block into numbers with `webSettings(system.connection)`. The defaults
 * live in the fragments only: loading fills them in there, and `webSettings` reads the same ones
 * for a definition built in code.
 *
 * How long one request may take is not set here: it is the System's `limits.statementTimeout`,
 * which already means "longest a read may run".
 */
import type { JsonSchema } from '../../definitions/connector-spec.js';
import { parseDuration } from '../../definitions/duration.js';
import { MAX_TIMEOUT_MS } from '../../definitions/system-limits.js';
import { formatSize, parseSize } from '../../definitions/size.js';

const secretHint = 'Put it in ${env:NAME} or ${file:path}, never in the definition file itself.';

/** An HTTP field name (RFC 9110 `token`). */
const headerName = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

/**
 * Headers the client sets itself: Authorization from `auth`, Host and Content-Length per request,
 * and the connection-level headers that fetch refuses outright.
 */
const clientHeaders = ['Authorization', 'Host', 'Content-Length', 'Connection', 'Keep-Alive', 'Transfer-Encoding', 'Upgrade', 'TE'];

/** `Host` → `^([Hh][Oo][Ss][Tt]|…)$`: JSON Schema patterns have no case-insensitive flag. */
const anyCase = (names: readonly string[]): string =>
  `^(${names.map((name) => [...name].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c)).join('')).join('|')})$`;

const httpUrl = (what: string): JsonSchema => ({
  type: 'string',
  pattern: '^https?://[^/?#@\\s]+(/[^?#\\s]*)?$',
  description: what,
});

const auth: JsonSchema = {
  type: 'object',
  required: ['type'],
  description:
    'How Syncline signs in to the system: basic, bearer, apiKey (a header) or oauth2 (client credentials). Put the secrets in ${env:NAME} or ${file:path}, never in the definition file itself.',
  // Every property once, checked here and shown in the reference and the editor; which of them a
  // type takes, requires and fills in is said per type below.
  properties: {
    type: { enum: ['basic', 'bearer', 'apiKey', 'oauth2'], description: 'The kind of sign-in: basic, bearer, apiKey or oauth2.' },
    username: { type: 'string', minLength: 1, description: 'basic: the user name.' },
    password: { type: 'string', description: `basic: the password. ${secretHint}` },
    token: { type: 'string', minLength: 1, description: `bearer: the token, sent as Authorization: Bearer <token>. ${secretHint}` },
    header: {
      type: 'string',
      pattern: headerName,
      description: 'apiKey: the header carrying the key; default X-API-Key. Never the query string: URLs end up in logs and proxies.',
    },
    value: { type: 'string', minLength: 1, description: `apiKey: the key. ${secretHint}` },
    tokenUrl: httpUrl(
      'An http or https URL, e.g. https://login.example.com/oauth2/token: oauth2, the token endpoint of the client credentials grant.',
    ),
    clientId: { type: 'string', minLength: 1, description: 'oauth2: the client identifier.' },
    clientSecret: { type: 'string', minLength: 1, description: `oauth2: the client secret. ${secretHint}` },
    scope: { type: 'string', minLength: 1, description: 'oauth2: the scopes to ask for, separated by spaces; default none.' },
    audience: {
      type: 'string',
      minLength: 1,
      description: 'oauth2: the API the token is for, where the token endpoint needs one (Auth0 and the like).',
    },
    clientAuthentication: {
      enum: ['basic', 'body'],
      description:
        'oauth2: how the client authenticates to the token endpoint (RFC 6749 §2.3.1): basic (HTTP Basic, the default, which every server must accept) or body (client_id and client_secret in the form).',
    },
  },
  // if/then per type rather than oneOf: Ajv fills in no defaults inside a oneOf (and refuses them
  // in strict mode), and a problem inside the chosen branch names the very property at fault.
  allOf: [
    authType('basic', ['username', 'password'], ['username', 'password']),
    authType('bearer', ['token'], ['token']),
    authType('apiKey', ['header', 'value'], ['value'], { header: 'X-API-Key' }),
    authType(
      'oauth2',
      ['tokenUrl', 'clientId', 'clientSecret', 'scope', 'audience', 'clientAuthentication'],
      ['tokenUrl', 'clientId', 'clientSecret'],
      {
        clientAuthentication: 'basic',
      },
    ),
  ],
};

/** The properties `type` takes (no others), those it requires, and its defaults. */
function authType(type: string, takes: readonly string[], requires: readonly string[], defaults: Record<string, unknown> = {}): JsonSchema {
  return {
    if: { properties: { type: { const: type } }, required: ['type'] },
    then: {
      additionalProperties: false,
      required: ['type', ...requires],
      properties: Object.fromEntries(['type', ...takes].map((name) => [name, name in defaults ? { default: defaults[name] } : true])),
    },
  };
}

/**
 * The shared properties of the `connection:` block, for a connector's connectionSchema. Frozen:
 * spread them, never change them.
 */
export const webConnectionProperties: Readonly<Record<string, JsonSchema>> = Object.freeze({
  baseUrl: httpUrl(
    'An http or https URL without user, password, query or fragment, e.g. https://erp.example.com/odata/v4/crm/: where the API lives. Request paths are resolved below it, keeping its path, and credentials go only to its scheme, host and port.',
  ),
  auth,
  headers: {
    type: 'object',
    description: `Headers sent with every request, e.g. X-Tenant: acme. Not Authorization (auth sets it), Host, Content-Length or the connection headers (each request sets its own). A secret value belongs in \${env:NAME} or \${file:path}.`,
    propertyNames: { pattern: headerName },
    patternProperties: {
      [anyCase(clientHeaders)]: {
        type: 'string',
        // Never matches: the names above are refused whatever their value, with this description.
        pattern: '(?!)',
        description:
          'No Authorization, Host, Content-Length or connection header (Connection, Keep-Alive, TE, Transfer-Encoding, Upgrade) here: auth sets Authorization and each request the others',
      },
    },
    additionalProperties: { type: 'string', pattern: '^[^\\r\\n]*$', description: 'The header value, on one line.' },
  },
  retries: {
    type: 'object',
    additionalProperties: false,
    description:
      'Retries of a request the system refused before doing anything (HTTP 429 and 503, any method), and of a GET or HEAD whose connection failed. Retry-After is honoured; without it the wait doubles from 500ms, ±20%.',
    properties: {
      max: { type: 'integer', minimum: 0, maximum: 10, default: 3, description: 'Retries after the first try.' },
      maxWait: {
        $ref: 'common.json#/$defs/duration',
        default: '30s',
        description:
          'Longest time one request may spend waiting between its tries, all waits together; a Retry-After asking for longer fails at once.',
      },
    },
    default: {},
  },
  rateLimit: {
    type: 'object',
    additionalProperties: false,
    required: ['requests', 'per'],
    description:
      'Most requests this process sends the system per time window (retries included); more wait for their turn. Default: no limit.',
    properties: {
      requests: { type: 'integer', minimum: 1, description: 'Requests allowed per window; up to this many may go at once.' },
      per: { $ref: 'common.json#/$defs/duration', description: 'The window, e.g. 1s or 1m.' },
    },
  },
  maxResponseBytes: {
    $ref: 'common.json#/$defs/size',
    default: '32mib',
    description: 'Largest answer body read (after decompression); a larger one is stopped and the request fails (422 result-too-large).',
  },
});

/** The shared properties a connection must set. */
export const webConnectionRequired: readonly string[] = Object.freeze(['baseUrl']);

/** `auth:` as validated. */
export type WebAuth =
  | { type: 'basic'; username: string; password: string }
  | { type: 'bearer'; token: string }
  | { type: 'apiKey'; header: string; value: string }
  | OAuth2Auth;

/** `auth: {type: oauth2}`: the client credentials grant (RFC 6749 §4.4). */
export interface OAuth2Auth {
  type: 'oauth2';
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  audience?: string;
  /** RFC 6749 §2.3.1: HTTP Basic (default) or client_id and client_secret in the form. */
  clientAuthentication: 'basic' | 'body';
}

/** The shared settings as numbers (ms, bytes), with the texts messages quote. */
export interface WebSettings {
  /** baseUrl, ending in `/` so that relative paths land below its path. */
  baseUrl: string;
  auth: WebAuth | undefined;
  /** Static headers sent with every request. */
  headers: Readonly<Record<string, string>>;
  /** `maxWait` as written, for messages: `30s`. */
  retries: { max: number; maxWaitMs: number; maxWait: string };
  /** Absent: no limit. */
  rateLimit: { requests: number; perMs: number } | undefined;
  maxResponseBytes: number;
  /** As a person reads it, for messages: `32 MiB`. */
  maxResponseBytesText: string;
}

// biome-ignore lint/suspicious/noExplicitAny: the fragments above are read back by keyword for their defaults.
type Schema = Record<string, any>;
const declared = webConnectionProperties as Schema;

/**
 * The shared settings of a validated `connection:` block (its connector's own properties are
 * ignored). Defaults the block lacks — a definition built in code — are the schema's.
 */
export function webSettings(connection: Readonly<Record<string, unknown>>): WebSettings {
  const retries = { ...defaultsOf(declared.retries), ...(connection.retries as object | undefined) } as { max: number; maxWait: string };
  const rateLimit = connection.rateLimit as { requests: number; per: string } | undefined;
  const maxResponseBytes = parseSize((connection.maxResponseBytes ?? declared.maxResponseBytes.default) as string | number)!;
  const auth = connection.auth as WebAuth | undefined;
  return Object.freeze({
    baseUrl: directoryUrl(String(connection.baseUrl)),
    auth: auth && Object.freeze({ ...authDefaults(auth.type), ...auth }),
    headers: Object.freeze({ ...(connection.headers as Record<string, string> | undefined) }),
    retries: Object.freeze({
      max: retries.max,
      maxWait: retries.maxWait,
      maxWaitMs: Math.min(parseDuration(retries.maxWait)!, MAX_TIMEOUT_MS),
    }),
    rateLimit: rateLimit && Object.freeze({ requests: rateLimit.requests, perMs: parseDuration(rateLimit.per)! }),
    maxResponseBytes,
    maxResponseBytesText: formatSize(maxResponseBytes),
  });
}

/** `http://h/odata/v4/crm` and `…/crm/` both mean the folder: `Customers` resolves to `…/crm/Customers`. */
function directoryUrl(text: string): string {
  const url = new URL(text);
  if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
  return url.href;
}

function authDefaults(type: string): Record<string, unknown> {
  const branch = (declared.auth.allOf as Schema[]).find((entry) => entry.if.properties.type.const === type)!;
  return defaultsOf(branch.then);
}

function defaultsOf(schema: Schema): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema | boolean>;
  return Object.fromEntries(
    Object.entries(properties).flatMap(([name, property]) =>
      typeof property === 'object' && 'default' in property ? [[name, property.default]] : [],
    ),
  );
}
