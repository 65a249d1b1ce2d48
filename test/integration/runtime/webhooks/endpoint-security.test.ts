/**
 * The webhook endpoint's security over HTTP: the seed's secret (either header, constant time,
 * 403), every signature profile over the raw body (401, replays outside the tolerance), and every
 * registration challenge profile (answered without running the action).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { flushCallLog } from '../../../../runtime/webhooks/log/call-log-writer.js';
import { quickstartApp, type HttpApp } from '../../../support/http-app.js';
import { assertProblem, fakeAction, hmacOf, secrets, seen, unixNow, webhookFiles } from './endpoint-fixture.js';

describe('webhook endpoint: secret, signatures and challenges', () => {
  let app: HttpApp;
  before(async () => {
    app = await quickstartApp({ files: webhookFiles, webhookAction: fakeAction });
  });
  after(() => app.close());

  const send = (id: string, raw: string, headers: Record<string, string> = {}) =>
    app.call('POST', `/api/webhooks/${id}`, { token: null, raw, headers: { 'content-type': 'application/json', ...headers } });

  describe('the seed secret', () => {
    const id = 'wh_secret000000001';
    it('accepts it in service_webhooksecret, as Authorization: Bearer, and as the raw Authorization value', async () => {
      const forms: Array<Record<string, string>> = [
        { service_webhooksecret: secrets.seed },
        { authorization: `Bearer ${secrets.seed}` },
        { authorization: secrets.seed },
      ];
      for (const headers of forms) {
        assert.equal((await send(id, '{"a":1}', headers)).status, 200, JSON.stringify(Object.keys(headers)));
      }
    });

    it('answers 403 for a missing secret, a wrong one of equal length, a prefix, and the admin token', async () => {
      const count = seen.length;
      const wrong = secrets.seed.slice(0, -1) + (secrets.seed.endsWith('f') ? 'e' : 'f');
      assert.equal(wrong.length, secrets.seed.length);
      const refused: Array<Record<string, string>> = [
        {},
        { service_webhooksecret: wrong },
        { authorization: `Bearer ${wrong}` },
        { service_webhooksecret: secrets.seed.slice(0, 10) },
        { authorization: 'Bearer admin-token-0123456789-abcdefghij-never-logged' },
      ];
      for (const headers of refused) {
        assertProblem(await send(id, '{}', headers), 403, 'webhook-forbidden');
      }
      assert.equal(seen.length, count);
    });

    it('redacts the secret in the logged payload', async () => {
      await send(id, '{"logged":1}', { service_webhooksecret: secrets.seed });
      // The endpoint writes its log behind the answers; reading the table directly needs a flush.
      await flushCallLog(app.db);
      const rows = await app.db.knex('webhook_log').where({ webhook_id: id }).select('payload');
      assert.ok(rows.length > 0);
      assert.ok(rows.every((row) => !String(row.payload).includes(secrets.seed)));
    });

    it('needs no secret where none is stored', async () => {
      assert.equal((await send('wh_plainOpen000001', '{}')).status, 200);
    });
  });

  describe('signatures over the raw body', () => {
    const body = '{"action":"opened","number":1}';

    it('github: X-Hub-Signature-256 sha256=<hex>', async () => {
      const good = `sha256=${hmacOf('sha256', secrets.github, body)}`;
      assert.equal((await send('wh_github00000001', body, { 'x-hub-signature-256': good })).status, 200);
      // The same signature over a body that differs by one space.
      assertProblem(
        await send('wh_github00000001', body.replace(',', ', '), { 'x-hub-signature-256': good }),
        401,
        'bad-signature',
        /does not match/,
      );
      assertProblem(await send('wh_github00000001', body), 401, 'bad-signature', /missing/);
      assertProblem(
        await send('wh_github00000001', body, { 'x-hub-signature-256': hmacOf('sha256', secrets.github, body) }),
        401,
        'bad-signature',
      );
    });

    it('stripe: t=…,v1=… within the tolerance; an old timestamp is a replay', async () => {
      const sign = (t: string) => `t=${t},v1=${hmacOf('sha256', secrets.stripe, `${t}.${body}`)}`;
      assert.equal((await send('wh_stripe00000001', body, { 'stripe-signature': sign(unixNow()) })).status, 200);
      // A rolled secret: two v1 values, one of them right.
      const t = unixNow();
      assert.equal(
        (
          await send('wh_stripe00000001', body, {
            'stripe-signature': `t=${t},v1=${'0'.repeat(64)},v1=${hmacOf('sha256', secrets.stripe, `${t}.${body}`)}`,
          })
        ).status,
        200,
      );
      assertProblem(await send('wh_stripe00000001', body, { 'stripe-signature': sign(unixNow(-600)) }), 401, 'bad-signature', /tolerance/);
      assertProblem(
        await send('wh_stripe00000001', body, { 'stripe-signature': `t=${unixNow()},v1=${'a'.repeat(64)}` }),
        401,
        'bad-signature',
      );
      assertProblem(
        await send('wh_stripe00000001', body, { 'stripe-signature': `v1=${hmacOf('sha256', secrets.stripe, body)}` }),
        401,
        'bad-signature',
        /timestamp/,
      );
    });

    it('slack: v0=<hex> over v0:{ts}:{body} with X-Slack-Request-Timestamp', async () => {
      const sign = (ts: string) => ({
        'x-slack-request-timestamp': ts,
        'x-slack-signature': `v0=${hmacOf('sha256', secrets.slack, `v0:${ts}:${body}`)}`,
      });
      assert.equal((await send('wh_slack000000001', body, sign(unixNow()))).status, 200);
      assertProblem(await send('wh_slack000000001', body, sign(unixNow(-3600))), 401, 'bad-signature', /tolerance/);
      const ts = unixNow();
      assertProblem(
        await send('wh_slack000000001', body, { ...sign(ts), 'x-slack-request-timestamp': String(Number(ts) - 1) }),
        401,
        'bad-signature',
        /does not match/,
      );
    });

    it('zoom: v0=<hex> over v0:{ts}:{body} with x-zm-request-timestamp', async () => {
      const sign = (ts: string) => ({
        'x-zm-request-timestamp': ts,
        'x-zm-signature': `v0=${hmacOf('sha256', secrets.zoom, `v0:${ts}:${body}`)}`,
      });
      assert.equal((await send('wh_zoom0000000001', body, sign(unixNow()))).status, 200);
      assertProblem(await send('wh_zoom0000000001', body, sign(unixNow(-3600))), 401, 'bad-signature', /tolerance/);
      assertProblem(await send('wh_zoom0000000001', body), 401, 'bad-signature', /missing/);
    });

    it('hmac: a configured header, prefix, algorithm, base64 and a signed timestamp', async () => {
      const sign = (ts: string, text = body) => ({
        'x-timestamp': ts,
        'x-signature': `sha512=${hmacOf('sha512', secrets.hmac, `${ts}.${text}`, 'base64')}`,
      });
      assert.equal((await send('wh_hmac0000000001', body, sign(unixNow()))).status, 200);
      assertProblem(await send('wh_hmac0000000001', body, sign(unixNow(-120))), 401, 'bad-signature', /tolerance/);
      assertProblem(
        await send('wh_hmac0000000001', body, {
          ...sign(unixNow()),
          'x-signature': `sha256=${hmacOf('sha512', secrets.hmac, body, 'base64')}`,
        }),
        401,
        'bad-signature',
        /start with sha512=/,
      );
      assertProblem(await send('wh_hmac0000000001', `${body} `, sign(unixNow())), 401, 'bad-signature', /does not match/);
    });
  });

  describe('registration challenges', () => {
    it('x-crc: GET crc_token → response_token, without the secret and without running the action', async () => {
      const count = seen.length;
      const answer = await app.call('GET', '/api/webhooks/wh_crc00000000001?crc_token=challenge-abc_123', { token: null });
      assert.equal(answer.status, 200, answer.text);
      const expected = `sha256=${createHmac('sha256', secrets.crc).update('challenge-abc_123').digest('base64')}`;
      assert.deepEqual(answer.json, { response_token: expected });
      assert.equal(seen.length, count);
      // A value that is not token-like (a forged body) is not signed.
      assertProblem(
        await app.call('GET', `/api/webhooks/wh_crc00000000001?crc_token=${encodeURIComponent('{"evil":1}')}`, { token: null }),
        400,
        'invalid-request',
      );
      // Any other call still needs the secret.
      assertProblem(await app.call('GET', '/api/webhooks/wh_crc00000000001?x=1', { token: null }), 403, 'webhook-forbidden');
    });

    it('x-crc with the secret that signs events: a challenge answer never serves as the signature of a body', async () => {
      const id = 'wh_crcSigned00001';
      const signature = (text: string) => ({
        'x-twitter-webhooks-signature': `sha256=${createHmac('sha256', secrets.crc).update(text).digest('base64')}`,
      });
      const count = seen.length;
      // A form body or a timestamped message cannot be asked for as a token…
      for (const forged of ['id=42', 'a=b&c=d', '1700000000.x', '{"id":1}', 'two words']) {
        assertProblem(
          await app.call('GET', `/api/webhooks/${id}?crc_token=${encodeURIComponent(forged)}`, { token: null }),
          400,
          'invalid-request',
        );
      }
      // …and a body that is token-shaped is refused even with the right HMAC.
      const token = 'abcDEF123';
      const answer = await app.call('GET', `/api/webhooks/${id}?crc_token=${token}`, { token: null });
      assert.equal(answer.json.response_token, signature(token)['x-twitter-webhooks-signature']);
      assertProblem(
        await app.call('POST', `/api/webhooks/${id}`, {
          token: null,
          raw: token,
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...signature(token) },
        }),
        401,
        'bad-signature',
        /shape of a challenge token/,
      );
      assert.equal(seen.length, count, 'no action ran');
      // A real event, signed, still goes through.
      const event = JSON.stringify({ for_user_id: '1', tweet_create_events: [] });
      assert.equal((await send(id, event, signature(event))).status, 200);
    });

    it('zoom: endpoint.url_validation → plainToken and hex encryptedToken, after the signature', async () => {
      const count = seen.length;
      const raw = JSON.stringify({ event: 'endpoint.url_validation', payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' } });
      const ts = unixNow();
      const headers = { 'x-zm-request-timestamp': ts, 'x-zm-signature': `v0=${hmacOf('sha256', secrets.zoom, `v0:${ts}:${raw}`)}` };
      const answer = await send('wh_zoom0000000001', raw, headers);
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.json, {
        plainToken: 'qgg8vlvZRS6UYooatFL8Aw',
        encryptedToken: hmacOf('sha256', secrets.zoom, 'qgg8vlvZRS6UYooatFL8Aw'),
      });
      assert.equal(seen.length, count);
      assertProblem(await send('wh_zoom0000000001', raw), 401, 'bad-signature');
    });

    it('slack: url_verification → the challenge, after the signature', async () => {
      const raw = JSON.stringify({
        token: 'x',
        challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
        type: 'url_verification',
      });
      const ts = unixNow();
      const answer = await send('wh_slack000000001', raw, {
        'x-slack-request-timestamp': ts,
        'x-slack-signature': `v0=${hmacOf('sha256', secrets.slack, `v0:${ts}:${raw}`)}`,
      });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.json, { challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' });
    });

    it('meta: hub.challenge as text/plain when hub.verify_token matches, else 403', async () => {
      const count = seen.length;
      const path = (token: string) =>
        `/api/webhooks/wh_meta0000000001?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${encodeURIComponent(token)}`;
      const answer = await app.call('GET', path(secrets.verifyToken), { token: null });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.type, 'text/plain');
      assert.equal(answer.text, '1158201444');
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
      const wrong = `${secrets.verifyToken.slice(0, -1)}X`;
      assertProblem(await app.call('GET', path(wrong), { token: null }), 403, 'webhook-forbidden', /verify_token/);
      assert.equal(seen.length, count);
    });
  });
});
