/**
 * Calls whose body the webhook refused, on every engine: broken JSON, JSON nested too deeply, a
 * key given twice, half of a surrogate pair, a body over the limit and a content type not
 * accepted. The call log keeps each with a note saying why it holds no body, lists it as not
 * replayable, and the console's replay and test of it answer that problem instead of sending an
 * empty body the caller never sent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { maxJsonDepth } from '../../../../runtime/request/read-body.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { engineApp, type HttpApp } from '../../../support/http-app.js';

const hook = 'wh_refusedBodies000001';
const secret = 'refused-bodies-secret-1';
const bodyLimit = 4096;
const files = {
  'refused-bodies.yaml': `kind: Webhook
id: ${hook}
secret: ${secret}
logPayload: true
action: startSync
sync: crm-customers-to-erp
`,
};

const cases = [
  {
    name: 'broken JSON',
    raw: '{"id": 1,',
    type: 'application/json',
    status: 400,
    note: /^body refused \(400\): the body is not valid JSON \(at character \d+\): check quotes, commas and brackets$/,
  },
  {
    name: 'JSON nested too deeply',
    raw: `{"id": ${'['.repeat(maxJsonDepth)}1${']'.repeat(maxJsonDepth)}}`,
    type: 'application/json',
    status: 400,
    note: new RegExp(`^body refused \\(400\\): the body nests objects and arrays deeper than ${maxJsonDepth} levels`),
  },
  {
    name: 'a key given twice in one object',
    raw: '{"id": 1, "id": 2}',
    type: 'application/json',
    status: 400,
    note: /^body refused \(400\): the key "id" is given twice in one object \(at \/id\)/,
  },
  {
    name: 'half of a surrogate pair',
    raw: '{"email": "\\ud800@example.com"}',
    type: 'application/json',
    status: 400,
    note: /^body refused \(400\): the text at \/email holds half of a surrogate pair/,
  },
  {
    name: 'a body over the limit',
    raw: JSON.stringify({ pad: 'x'.repeat(bodyLimit) }),
    type: 'application/json',
    status: 413,
    note: new RegExp(`^body refused \\(413\\): the body exceeds the limit of ${bodyLimit} bytes$`),
  },
  {
    name: 'a content type not accepted',
    raw: 'id=1',
    type: 'text/plain',
    status: 415,
    note: /^body refused \(415\): a webhook accepts application\/json, .* not text\/plain$/,
  },
] as const;

await describeEachDatabase('refused webhook bodies in the call log', (database) => {
  let app: HttpApp;
  before(async () => {
    app = await engineApp(database(), { files, bodyLimit });
  });
  after(() => app.close());

  for (const refused of cases) {
    describe(refused.name, () => {
      it('is logged with a note saying why the body is not kept, not replayable, and a replay answers that', async () => {
        const answer = await app.call('POST', `/api/webhooks/${hook}?source=crm`, {
          token: null,
          raw: refused.raw,
          headers: { 'content-type': refused.type, service_webhooksecret: secret },
        });
        assert.equal(answer.status, refused.status, answer.text);
        const list = await app.get(`/api/console/webhooks/${hook}/log?limit=1`);
        const summary = list.json.entries[0];
        assert.equal(summary.status, refused.status);
        assert.equal(summary.replayable, false);
        const entry = (await app.get(`/api/console/webhooks/${hook}/log/${summary.id}`)).json;
        assert.match(entry.payload.note, refused.note);
        assert.equal(entry.payload.data, undefined);
        assert.equal(entry.payload.body, undefined);
        assert.deepEqual(entry.payload.query, { source: 'crm' });
        assert.equal(entry.payload.headers['content-type'], refused.type, 'the headers show what was sent');
        assert.equal(entry.payload.headers.service_webhooksecret, '[redacted]');

        assert.equal((await app.post(`/api/console/webhooks/${hook}/log/${summary.id}/pin`)).status, 200);
        for (const [path, body] of [
          [`/log/${summary.id}/replay`, undefined],
          ['/test', { pin: summary.id }],
        ] as const) {
          const replay = await app.post(`/api/console/webhooks/${hook}${path}`, body);
          assert.equal(replay.status, 409, replay.text);
          assert.equal(replay.json.type, 'urn:syncline:problem:not-replayable');
          assert.ok(
            replay.json.detail.startsWith(`Log entry ${summary.id} cannot be replayed: body refused (${refused.status}): `),
            replay.json.detail,
          );
        }
      });
    });
  }

  it('keeps a whole number past 2^53 as the text of its exact digits, not the double JSON.parse would round it to', async () => {
    const answer = await app.call('POST', `/api/webhooks/${hook}`, {
      token: null,
      raw: '{"id": 9007199254740993, "ids": [12345678901234567890], "small": 12, "double": 1e20}',
      headers: { 'content-type': 'application/json', service_webhooksecret: secret },
    });
    assert.equal(answer.status, 200, answer.text);
    const list = await app.get(`/api/console/webhooks/${hook}/log?limit=1`);
    const entry = (await app.get(`/api/console/webhooks/${hook}/log/${list.json.entries[0].id}`)).json;
    assert.deepEqual(entry.payload.data, { id: '9007199254740993', ids: ['12345678901234567890'], small: 12, double: 1e20 });
  });
});
