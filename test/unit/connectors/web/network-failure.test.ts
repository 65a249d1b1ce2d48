/**
 * What a failed fetch means, from the error fetch rejects with: the socket's, DNS's or TLS's code
 * somewhere along its cause chain (or in an AggregateError of several addresses), in words safe
 * to show, and whether a retry of a read may help. Errors that are no network failure are left
 * to their callers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { networkFailure } from '../../../../connectors/web/network-failure.js';

const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });
const coded = (code: string) => Object.assign(new Error(`${code} at 10.0.0.1:443 secret-host`), { code });

test('socket and DNS failures, transient or not', () => {
  assert.deepEqual(networkFailure(fetchFailed(coded('ECONNREFUSED'))), { reason: 'connection refused', transient: true });
  assert.deepEqual(networkFailure(fetchFailed(coded('ECONNRESET'))), { reason: 'the connection was reset', transient: true });
  assert.deepEqual(networkFailure(fetchFailed(coded('ENOTFOUND'))), { reason: 'host not found', transient: false });
  assert.equal(networkFailure(fetchFailed(coded('EAI_AGAIN')))?.transient, true);
  assert.equal(networkFailure(new TypeError('terminated', { cause: coded('UND_ERR_SOCKET') }))?.transient, true, 'a body cut off midway');
});

test('TLS failures name the code and are not retried', () => {
  assert.deepEqual(networkFailure(fetchFailed(coded('CERT_HAS_EXPIRED'))), {
    reason: 'the TLS handshake failed (CERT_HAS_EXPIRED)',
    transient: false,
  });
  assert.equal(
    networkFailure(fetchFailed(coded('ERR_TLS_CERT_ALTNAME_INVALID')))?.reason,
    'the TLS handshake failed (ERR_TLS_CERT_ALTNAME_INVALID)',
  );
  assert.equal(networkFailure(fetchFailed(coded('DEPTH_ZERO_SELF_SIGNED_CERT')))?.transient, false);
});

test('codes inside an AggregateError or deeper in the chain are found', () => {
  const aggregate = Object.assign(new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]), { code: undefined });
  assert.equal(networkFailure(fetchFailed(aggregate))?.reason, 'connection refused');
  assert.equal(networkFailure(fetchFailed(new Error('wrapped', { cause: coded('ETIMEDOUT') })))?.reason, 'connecting timed out');
});

test('unknown causes are a failed request; what is not a fetch failure is none', () => {
  assert.deepEqual(networkFailure(fetchFailed(new Error('something new'))), { reason: 'the request failed', transient: false });
  assert.equal(networkFailure(fetchFailed(new Error('bad port')))?.reason, 'fetch refuses to use this port');
  assert.equal(networkFailure(new TypeError('Headers.append: invalid header value')), undefined);
  assert.equal(networkFailure(new DOMException('aborted', 'AbortError')), undefined);
  assert.equal(networkFailure('fetch failed'), undefined);
});
