/**
 * Credentials in webhook calls, through the public interface on every engine: one rule for
 * headers, query, form fields and JSON at any depth, by name (built-in words and the webhook's
 * logRedact) and by value (the webhook's secret, every client's token and the admin token, also
 * inside longer strings), in the stored row, the console's entry, the response body and the
 * ticker, the console's test stream and `syncline webhook test`. A payload that lost a value
 * cannot be replayed (the placeholder is no value); one that lost nothing can.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readEventStream } from '../../../../runtime/cli/read-event-stream.js';
import { runCli } from '../../../support/cli-process.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { sha256 } from '../../../../runtime/http/auth.js';
import { engineApp, quickstartApp, tokens, type HttpApp } from '../../../support/http-app.js';

const hookSecret = 'hook-secret-7Q2xV';
const intake = 'wh_redactIntake0000001';
const lookup = 'wh_redactLookup0000001';
const save = 'wh_redactSave000000001';
const encodedHook = 'wh_redactEncoded000001';
/** A secret and a token with characters URLs and forms escape. */
const encodedSecret = 'hook secret/7Q+x=V';
const base64Token = 'c2VjcmV0+dG9rZW4/d2l0aC1wYWRkaW5n==';

const files = {
  'redaction.yaml': `kind: Webhook
id: ${intake}
secret: ${hookSecret}
logPayload: true
logRedact: [iban, Customer-Number]
action: startSync
sync: crm-customers-to-erp
---
kind: Webhook
id: ${lookup}
secret: ${hookSecret}
logPayload: true
action: readWithSystem
system: crm
object: Customer
search: "id = #id#"
order: id asc
responseSchema: { type: array }
readMapping: '{ "id": id, "name": name, "sessionToken": email }'
---
kind: Webhook
id: ${save}
secret: ${hookSecret}
logPayload: true
action: saveWithSystem
system: crm
object: Customer
writeMapping: '{ "name": name, "active": active }'
---
kind: Webhook
id: ${encodedHook}
secret: ${encodedSecret}
logPayload: true
action: startSync
sync: crm-customers-to-erp
---
kind: ApiClient
id: redaction-base64
tokenSha256: ${sha256(base64Token).toString('hex')}
scopes: [systems:read]
`,
};

/** Every value below must be absent from every stored row and every answer of the console. */
const sent = {
  query: 'query-secret-q1',
  queryToken: 'query-token-q2',
  password: 'json-password-j1',
  apiKey: 'json-api-key-j2',
  accessToken: 'json-access-token-j3',
  clientSecret: 'json-client-secret-j4',
  itemToken: 'json-item-token-j5',
  passwd: 'json-passwd-j6',
  iban: 'DE89370400440532013000',
  customerNumber: 'K-55-internal',
  forwardAuth: 'forward-auth-h1',
  cookie: 'session=cookie-h2',
  headerKey: 'header-api-key-h3',
  formPassword: 'form-password-f1',
} as const;
const tokenValues = [tokens.admin, tokens.hashed, tokens.operator, hookSecret];

await describeEachDatabase('webhook call redaction', (database) => {
  describe('log, console and replay', () => {
    let app: HttpApp;
    before(async () => {
      app = await engineApp(database(), { files });
    });
    after(() => app.close());

    const call = (method: string, path: string, options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}) =>
      app.call(method, path, { token: null, ...options, headers: { service_webhooksecret: hookSecret, ...options.headers } });
    const latest = async (webhookId: string) => {
      const list = await app.get(`/api/console/webhooks/${webhookId}/log?limit=1`);
      const entry = await app.get(`/api/console/webhooks/${webhookId}/log/${list.json.entries[0].id}`);
      assert.equal(entry.status, 200, entry.text);
      return { summary: list.json.entries[0], entry: entry.json, text: entry.text };
    };
    const assertNothingStored = async (id: string, values: readonly string[]) => {
      const row = JSON.stringify(await database().admin('webhook_log').where({ id }).first());
      for (const value of values) assert.ok(!row.includes(value), `${value} is not stored: ${row}`);
    };

    it('a GET: ?secret= is redacted under query and under data alike, and the entry is not replayable', async () => {
      const answer = await call('GET', `/api/webhooks/${intake}?id=2&secret=${sent.query}&access_token=${sent.queryToken}`);
      assert.equal(answer.status, 200, answer.text);
      const { summary, entry } = await latest(intake);
      assert.deepEqual(entry.payload.query, { id: '2', secret: '[redacted]', access_token: '[redacted]' });
      assert.deepEqual(entry.payload.data, entry.payload.query);
      assert.deepEqual(entry.payload.redacted, ['query.secret', 'query.access_token', 'data.secret', 'data.access_token']);
      assert.equal(summary.replayable, false);
      await assertNothingStored(entry.id, [sent.query, sent.queryToken, hookSecret]);

      await app.post(`/api/console/webhooks/${intake}/log/${entry.id}/pin`);
      const replay = await app.post(`/api/console/webhooks/${intake}/log/${entry.id}/replay`);
      assert.equal(replay.status, 409, replay.text);
      assert.match(
        replay.json.detail,
        /credentials were taken out of it \(query\.secret, query\.access_token, data\.secret, data\.access_token\), and a replay would send \[redacted\] in their place/,
      );
      const test = await app.post(`/api/console/webhooks/${intake}/test`, { pin: entry.id });
      assert.equal(test.status, 409, test.text);
    });

    it('JSON at any depth, headers, logRedact names, and secrets and tokens inside longer strings', async () => {
      const body = {
        id: 3,
        user: {
          password: sent.password,
          api_key: sent.apiKey,
          profile: { accessToken: sent.accessToken, 'client-secret': sent.clientSecret, city: 'Leeds' },
        },
        items: [{ token: sent.itemToken }, { note: `the admin uses ${tokens.admin} today` }],
        passwd: sent.passwd,
        IBAN: sent.iban,
        customer_number: 'kept: not a listed name',
        'Customer-Number': sent.customerNumber,
        message: `call us with Bearer ${tokens.hashed}`,
        mixed: `x${hookSecret}y`,
        [`key-${tokens.operator}`]: 'a name holding a token',
        author: 'Ann',
      };
      const headers = {
        'X-Forward-Auth': sent.forwardAuth,
        Cookie: sent.cookie,
        'X-Api-Key': sent.headerKey,
        'X-Note': `token ${tokens.operator}`,
      };
      const answer = await call('POST', `/api/webhooks/${intake}`, { body, headers });
      assert.equal(answer.status, 200, answer.text);
      const { summary, entry } = await latest(intake);
      const data = entry.payload.data;
      assert.deepEqual(data.user, {
        password: '[redacted]',
        api_key: '[redacted]',
        profile: { accessToken: '[redacted]', 'client-secret': '[redacted]', city: 'Leeds' },
      });
      assert.deepEqual(data.items, [{ token: '[redacted]' }, { note: 'the admin uses [redacted] today' }]);
      assert.equal(data.passwd, '[redacted]');
      assert.equal(data.IBAN, '[redacted]', 'logRedact, compared without case');
      assert.equal(data['Customer-Number'], '[redacted]');
      assert.equal(data.customer_number, 'kept: not a listed name');
      assert.equal(data.message, 'call us with Bearer [redacted]', 'a token kept only as its SHA-256 is still found');
      assert.equal(data.mixed, 'x[redacted]y');
      // The token is taken out of the name; the name says token, so its value goes too.
      assert.equal(data['key-[redacted]'], '[redacted]');
      assert.equal(data.author, 'Ann');
      assert.equal(data.id, 3);
      for (const name of ['x-forward-auth', 'cookie', 'x-api-key', 'service_webhooksecret'])
        assert.equal(entry.payload.headers[name], '[redacted]', name);
      assert.equal(entry.payload.headers['x-note'], 'token [redacted]');
      assert.equal(entry.payload.body, undefined, 'the raw body would keep what the data lost');
      assert.ok(
        entry.payload.redacted.includes('data.user.password') && entry.payload.redacted.includes('data.items[1].note'),
        JSON.stringify(entry.payload.redacted),
      );
      assert.equal(summary.replayable, false);
      await assertNothingStored(entry.id, [
        ...Object.values(sent).filter((value) => value !== sent.query && value !== sent.queryToken && value !== sent.formPassword),
        ...tokenValues,
      ]);
    });

    it('form fields follow the same rule; a body that lost nothing is kept whole and replays', async () => {
      const form = await call('POST', `/api/webhooks/${intake}`, {
        raw: `id=4&name=Ann&password=${sent.formPassword}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(form.status, 200, form.text);
      const { entry } = await latest(intake);
      assert.deepEqual(entry.payload.data, { id: '4', name: 'Ann', password: '[redacted]' });
      assert.equal(entry.payload.body, undefined);
      await assertNothingStored(entry.id, [sent.formPassword]);

      // Two equal keys are refused (which copy counts would be a guess): the refused body, whose
      // first copy holds the secret, escaped, is not kept.
      const duplicate = await call('POST', `/api/webhooks/${intake}`, {
        raw: `{"id": 5, "note": "\\u0068${hookSecret.slice(1)}", "note": "plain"}`,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(duplicate.status, 400, duplicate.text);
      const hidden = await latest(intake);
      assert.equal(hidden.entry.payload.data, undefined);
      assert.equal(hidden.entry.payload.body, undefined);
      assert.match(hidden.entry.payload.note, /^body refused \(400\): the key "note" is given twice/);
      assert.equal(hidden.summary.replayable, false);
      await assertNothingStored(hidden.entry.id, [hookSecret, hookSecret.slice(1)]);

      const clean = await call('POST', `/api/webhooks/${intake}`, {
        raw: '{"id": 2, "event": "customer.updated"}',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(clean.status, 200, clean.text);
      const kept = await latest(intake);
      assert.equal(kept.entry.payload.body, '{"id": 2, "event": "customer.updated"}');
      assert.equal(kept.entry.payload.redacted, undefined);
      assert.equal(kept.summary.replayable, true);
      await app.post(`/api/console/webhooks/${intake}/log/${kept.entry.id}/pin`);
      const replay = await app.post(`/api/console/webhooks/${intake}/log/${kept.entry.id}/replay`);
      assert.equal(replay.status, 200, replay.text);
      assert.equal(replay.json.response.status, 200, replay.json.response.body);
    });

    it('tokens and secrets next to percent escapes and +, or themselves percent-encoded, are redacted; encoded words are kept', async () => {
      const body = {
        id: 2,
        form: `x=%3D${tokens.admin}`,
        spaced: `a%20${tokens.hashed}%26b`,
        plus: `a+${tokens.operator}`,
        encoded: `t=${encodeURIComponent(base64Token)}&n=1`,
        hint: `s=${encodeURIComponent(encodedSecret)}`,
        formHint: `s=${encodedSecret.replace(/ /g, '+').replace(/\//g, '%2f')}`,
        words: 'a%20word%20and%20more%3Dwords_that_are_long',
      };
      const answer = await app.call('POST', `/api/webhooks/${encodedHook}`, {
        token: null,
        body,
        headers: { service_webhooksecret: encodedSecret },
      });
      assert.equal(answer.status, 200, answer.text);
      const { summary, entry } = await latest(encodedHook);
      assert.deepEqual(entry.payload.data, {
        id: 2,
        form: 'x=%3D[redacted]',
        spaced: 'a%20[redacted]%26b',
        plus: 'a+[redacted]',
        encoded: 't=[redacted]&n=1',
        hint: 's=[redacted]',
        formHint: 's=[redacted]',
        words: 'a%20word%20and%20more%3Dwords_that_are_long',
      });
      assert.equal(summary.replayable, false);
      await assertNothingStored(entry.id, [
        tokens.admin,
        tokens.hashed,
        tokens.operator,
        base64Token,
        encodeURIComponent(base64Token),
        encodedSecret,
        encodeURIComponent(encodedSecret),
      ]);
    });

    it('the response body and the ticker are redacted in the log; the caller gets its answer as it is', async () => {
      const answer = await call('POST', `/api/webhooks/${lookup}`, { body: { id: 1 } });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(typeof answer.json[0].sessionToken, 'string', 'the caller reads what it asked for');
      const { entry } = await latest(lookup);
      assert.equal(entry.response.body[0].sessionToken, '[redacted]');
      assert.equal(entry.response.body[0].id, 1);

      // The connector's refusal quotes the value: the ticker and the logged answer do not.
      const refused = await call('POST', `/api/webhooks/${save}`, { body: { name: 'Refused', active: `no-${hookSecret}` } });
      assert.equal(refused.status, 400, refused.text);
      assert.ok(refused.text.includes(hookSecret), 'the caller reads its own value in the refusal');
      const failed = await latest(save);
      const errors = failed.entry.ticker.filter((message: { kind: string }) => message.kind === 'error');
      assert.ok(
        errors.length > 0 && errors.every((message: { message: string }) => !message.message.includes(hookSecret)),
        JSON.stringify(failed.entry.ticker),
      );
      assert.ok(
        errors.some((message: { message: string }) => message.message.includes('[redacted]')),
        JSON.stringify(errors),
      );
      assert.ok(!failed.text.includes(hookSecret), failed.text);
      await assertNothingStored(failed.entry.id, [hookSecret]);
    });

    it("the console's test stream shows what it sends and receives redacted as the log keeps it", async () => {
      const response = await fetch(`${app.base}/api/console/webhooks/${lookup}/test`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ data: { id: 1, password: sent.password, note: `with ${tokens.hashed}` } }),
      });
      assert.equal(response.status, 200);
      const events: Array<{ event: string; data: any }> = [];
      for await (const event of readEventStream(response.body!)) events.push({ event: event.event, data: JSON.parse(event.data) });
      const sentEvent = events.find((event) => event.event === 'sent')!;
      assert.deepEqual(sentEvent.data.data, { id: 1, password: '[redacted]', note: 'with [redacted]' });
      const received = events.find((event) => event.event === 'response')!;
      assert.equal(received.data.status, 200);
      assert.equal(JSON.parse(received.data.body)[0].sessionToken, '[redacted]');
      const text = JSON.stringify(events);
      for (const value of [sent.password, tokens.hashed, hookSecret]) assert.ok(!text.includes(value), `${value} is not shown`);
    });
  });
});

describe('syncline webhook test shows no credential', () => {
  let app: HttpApp;
  let dir: string;
  before(async () => {
    app = await quickstartApp({ files });
    dir = await mkdtemp(join(tmpdir(), 'syncline-redaction-'));
  });
  after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints sent data, ticker and received body with the values replaced', async () => {
    const dataFile = join(dir, 'data.json');
    await writeFile(dataFile, JSON.stringify({ id: 1, password: sent.password, note: `uses ${tokens.operator}` }));
    const result = await runCli(['webhook', 'test', lookup, '--data', dataFile, '--url', app.base], {
      env: { SYNCLINE_ADMIN_TOKEN: tokens.admin },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /"password": "\[redacted\]"/);
    assert.match(result.stdout, /"note": "uses \[redacted\]"/);
    assert.match(result.stdout, /"sessionToken": "\[redacted\]"/);
    for (const value of [sent.password, tokens.operator, hookSecret]) assert.ok(!result.stdout.includes(value), `${value} is not printed`);
  });
});
