/**
 * The web client's OAuth2 client credentials against a real token endpoint and API on a loopback
 * port: one token request for many concurrent requests, both ways of client authentication
 * (RFC 6749 §2.3.1), renewal before expiry and after a 401 (once), and a token endpoint that fails
 * without its answer or the client secret reaching a message.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clientOf, json, logged, RecordingServer, rejectsWith, sleep } from './web-test-support.js';

let api: RecordingServer;
before(async () => {
  api = await RecordingServer.start();
});
after(async () => {
  await api.close();
});

const client = (connection: Record<string, unknown>) => clientOf(api, connection);

describe('OAuth2 client credentials', () => {
  /** The token endpoint at /oauth/token: tokens tok-1, tok-2, … living `expiresIn` seconds. */
  function tokenServer(options: { expiresIn?: number; apiAnswer?: (token: string) => number } = {}) {
    let issued = 0;
    api.answerWith((hit, res) => {
      if (hit.url === '/oauth/token') {
        issued += 1;
        setTimeout(
          () => json(res, 200, { access_token: `tok-${issued}`, token_type: 'Bearer', expires_in: options.expiresIn ?? 3600 }),
          50,
        );
        return;
      }
      const token = String(hit.headers.authorization).replace('Bearer ', '');
      json(res, options.apiAnswer?.(token) ?? 200, { token });
    });
  }

  const oauth2 = (extra: Record<string, unknown> = {}) => ({
    auth: { type: 'oauth2', tokenUrl: `${api.origin}/oauth/token`, clientId: 'app id', clientSecret: 'cs-secret/+=', ...extra },
  });

  test('many concurrent requests share one token request; client authentication basic', async () => {
    tokenServer();
    const web = client(oauth2({ scope: 'read write', audience: 'https://api.example.com' }));
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => web.getJson(`Customers(${i})`)));
    assert.deepEqual(answers, Array(10).fill({ token: 'tok-1' }));
    const tokenHits = api.hitsOf('/oauth/token');
    assert.equal(tokenHits.length, 1);
    const [tokenHit] = tokenHits;
    assert.equal(tokenHit!.method, 'POST');
    assert.equal(tokenHit!.headers['content-type'], 'application/x-www-form-urlencoded');
    // RFC 6749 §2.3.1: id and secret are form-encoded before Basic.
    assert.equal(tokenHit!.headers.authorization, `Basic ${Buffer.from('app+id:cs-secret%2F%2B%3D').toString('base64')}`);
    assert.deepEqual(Object.fromEntries(new URLSearchParams(tokenHit!.body)), {
      grant_type: 'client_credentials',
      scope: 'read write',
      audience: 'https://api.example.com',
    });
    assert.deepEqual(await web.getJson('again'), { token: 'tok-1' });
    assert.equal(api.hitsOf('/oauth/token').length, 1, 'the token is kept');
  });

  test('client authentication in the body', async () => {
    tokenServer();
    await client(oauth2({ clientAuthentication: 'body' })).getJson('x');
    const [tokenHit] = api.hitsOf('/oauth/token');
    assert.equal(tokenHit!.headers.authorization, undefined);
    assert.deepEqual(Object.fromEntries(new URLSearchParams(tokenHit!.body)), {
      grant_type: 'client_credentials',
      client_id: 'app id',
      client_secret: 'cs-secret/+=',
    });
  });

  test('a token is renewed shortly before it expires', async () => {
    tokenServer({ expiresIn: 1 });
    const web = client(oauth2());
    assert.deepEqual(await web.getJson('a'), { token: 'tok-1' });
    await sleep(1000);
    assert.deepEqual(await web.getJson('b'), { token: 'tok-2' });
    assert.equal(api.hitsOf('/oauth/token').length, 2);
  });

  test('a 401 drops the token, fetches a new one and retries once', async () => {
    tokenServer({ apiAnswer: (token) => (token === 'tok-1' ? 401 : 200) });
    const web = client(oauth2());
    assert.deepEqual(await web.getJson('Customers'), { token: 'tok-2' });
    assert.equal(api.hitsOf('/oauth/token').length, 2);
    assert.equal(api.hitsOf('/odata').length, 2);
  });

  test('a second 401 is an error', async () => {
    tokenServer({ apiAnswer: () => 401 });
    const error = await rejectsWith(
      client(oauth2()).getJson('Customers'),
      'unavailable',
      /^system 'erp' refused our credentials \(HTTP 401/,
    );
    assert.equal(api.hitsOf('/oauth/token').length, 2);
    assert.equal(api.hitsOf('/odata').length, 2);
    assert.doesNotMatch(logged(error), /tok-1|tok-2|cs-secret/);
  });

  test('a 403 is no reason for a new token: refused at once', async () => {
    tokenServer({ apiAnswer: () => 403 });
    await rejectsWith(client(oauth2()).getJson('Customers'), 'unavailable', /^system 'erp' refused our credentials \(HTTP 403/);
    assert.equal(api.hitsOf('/oauth/token').length, 1);
    assert.equal(api.hitsOf('/odata').length, 1);
  });

  test('a token endpoint that fails is unavailable with its status only; its echo of the secret is redacted', async () => {
    api.answerWith((hit, res) => json(res, 400, { error: 'invalid_client', echo: hit.headers.authorization, form: hit.body }));
    const error = await rejectsWith(
      client(oauth2({ clientAuthentication: 'body' })).getJson('Customers'),
      'unavailable',
      /^system 'erp': could not obtain an OAuth2 access token from connection\.auth\.tokenUrl \(HTTP 400\)$/,
    );
    assert.equal(api.hitsOf('/odata').length, 0);
    assert.match(logged(error), /invalid_client/);
    assert.doesNotMatch(logged(error), /cs-secret|cs-secret%2F%2B%3D/);
  });
});
