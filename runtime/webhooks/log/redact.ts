/**
 * What never reaches the log: credentials in request headers and query parameters. The value is
 * replaced, the name kept, so an entry still shows that a secret or signature was sent.
 *
 * Named headers: Authorization (and Proxy-Authorization), Cookie, the seed's
 * service_webhooksecret, the signature headers of the built-in profiles (GitHub
 * X-Hub-Signature and X-Hub-Signature-256, Stripe-Signature, X-Slack-Signature, x-zm-signature)
 * and the webhook's own configured signature header. Beyond those names, any header or query
 * parameter whose name says secret, signature, token, password or api key: a webhook of another
 * vendor should not leak its credentials because nobody listed them here.
 */
export const redacted = '[redacted]';

const namedHeaders = new Set(['authorization', 'proxy-authorization', 'cookie', 'service_webhooksecret', 'stripe-signature', 'x-slack-signature', 'x-zm-signature']);

const credentialName = /secret|signature|token|passw(or)?d|api[-_]?key|^x-hub-signature/i;

export function isSecretHeader(name: string, extra: ReadonlySet<string> = emptySet): boolean {
  const lower = name.toLowerCase();
  return namedHeaders.has(lower) || extra.has(lower) || credentialName.test(lower);
}

const emptySet: ReadonlySet<string> = new Set();

type Values = Readonly<Record<string, string | string[] | undefined>>;

/** Headers with every secret one replaced; `extra` names more headers (lower-case). */
export function redactHeaders(headers: Values, extra: ReadonlySet<string> = emptySet): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = isSecretHeader(name, extra) ? redacted : value;
  }
  return out;
}

/** Query parameters with credential-named ones replaced (e.g. Meta's hub.verify_token). */
export function redactQuery(query: Values): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    out[name] = credentialName.test(name) ? redacted : value;
  }
  return out;
}
