/**
 * Which names carry credentials: one rule for request headers, query parameters, form fields and
 * JSON properties at any depth (redact.ts applies it). Names are compared without case.
 *
 * - A name containing, once separators (- _ . and spaces) are taken out, one of: secret, token,
 *   password, passwd, passphrase, credential, signature, authorization, cookie, apikey,
 *   accesskey, privatekey — so `client_secret`, `accessToken`, `X-API-Key`, `private-key`,
 *   `hub.verify_token`, `Stripe-Signature`, `Set-Cookie` and `service_webhooksecret` are all
 *   credentials. A few innocent names are caught as well (`tokenizer`); a leaked credential costs
 *   more than a hidden word.
 * - A name with one of these words, split at separators and camelCase: auth, session, sessionid,
 *   pwd, jwt — so `X-Forward-Auth`, `authCode` and `session_id` are, while `author` and
 *   `sessions_count` are not.
 * - Names the webhook lists in `logRedact`, and its signature header.
 */

const credentialParts = [
  'secret',
  'token',
  'password',
  'passwd',
  'passphrase',
  'credential',
  'signature',
  'authorization',
  'cookie',
  'apikey',
  'accesskey',
  'privatekey',
];
const credentialWords: ReadonlySet<string> = new Set(['auth', 'session', 'sessionid', 'pwd', 'jwt']);

const separators = /[-_.\s]+/g;

/** Whether values under `name` are credentials; `extra` holds more names, lower-case. */
export function isSecretName(name: string, extra: ReadonlySet<string>): boolean {
  const lower = name.toLowerCase();
  if (extra.has(lower)) return true;
  const compact = lower.replace(separators, '');
  if (credentialParts.some((part) => compact.includes(part))) return true;
  return wordsOf(name).some((word) => credentialWords.has(word));
}

/** `X-Forward-Auth` → x, forward, auth; `sessionID` → session, id; `APIKey` → api, key. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(separators)
    .filter((word) => word !== '');
}
