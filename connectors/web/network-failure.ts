/**
 * What a failed fetch means, in a few words safe to show, and whether trying again may help.
 * fetch rejects with `TypeError('fetch failed')` and the socket's, DNS's or TLS's error as its
 * `cause`; that error's code says what happened. Transient failures (refused, reset, timed out,
 * DNS not answering) are worth a retry of a read; a host that does not exist or a certificate
 * that is refused stays so.
 */

export interface NetworkFailure {
  /** A few words for messages, e.g. "connection refused". */
  reason: string;
  transient: boolean;
}

const byCode: Readonly<Record<string, NetworkFailure>> = {
  ECONNREFUSED: { reason: 'connection refused', transient: true },
  ECONNRESET: { reason: 'the connection was reset', transient: true },
  EPIPE: { reason: 'the connection was reset', transient: true },
  UND_ERR_SOCKET: { reason: 'the connection was closed before the answer came', transient: true },
  UND_ERR_CLOSED: { reason: 'the connection was closed before the answer came', transient: true },
  ETIMEDOUT: { reason: 'connecting timed out', transient: true },
  UND_ERR_CONNECT_TIMEOUT: { reason: 'connecting timed out', transient: true },
  UND_ERR_HEADERS_TIMEOUT: { reason: 'the system stopped answering', transient: true },
  UND_ERR_BODY_TIMEOUT: { reason: 'the system stopped answering', transient: true },
  EHOSTUNREACH: { reason: 'the host is unreachable', transient: true },
  ENETUNREACH: { reason: 'the network is unreachable', transient: true },
  EAI_AGAIN: { reason: 'the host name could not be looked up (DNS did not answer)', transient: true },
  ENOTFOUND: { reason: 'host not found', transient: false },
};

/** Certificate and handshake codes of OpenSSL and Node's TLS layer. */
const tlsCode = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

/** The failure behind a rejected fetch, or undefined when it is no network failure (a bug, an abort). */
export function networkFailure(error: unknown): NetworkFailure | undefined {
  // 'fetch failed' before the answer, 'terminated' when the connection broke while its body streamed in.
  if (!(error instanceof TypeError) || (error.message !== 'fetch failed' && error.message !== 'terminated')) return undefined;
  for (const code of codesOf(error.cause)) {
    const known = byCode[code];
    if (known !== undefined) return known;
    if (tlsCode.test(code)) return { reason: `the TLS handshake failed (${code})`, transient: false };
  }
  // fetch refuses some ports outright (the Fetch standard's "bad port" list: 25, 6000, …).
  if (error.cause instanceof Error && error.cause.message === 'bad port') {
    return { reason: 'fetch refuses to use this port', transient: false };
  }
  return { reason: 'the request failed', transient: false };
}

/** The `code`s along a cause chain, and of an AggregateError's errors (one per address tried). */
function codesOf(cause: unknown, depth = 0): string[] {
  if (typeof cause !== 'object' || cause === null || depth > 4) return [];
  const { code, errors, cause: inner } = cause as { code?: unknown; errors?: unknown; cause?: unknown };
  return [
    ...(typeof code === 'string' ? [code] : []),
    ...(Array.isArray(errors) ? errors.flatMap((one) => codesOf(one, depth + 1)) : []),
    ...codesOf(inner, depth + 1),
  ];
}
