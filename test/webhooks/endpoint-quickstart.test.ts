/**
 * The quickstart's webhook end to end through the real action dispatcher, as the README's curl
 * does it: the secret, the condition, and the queue item the start creates.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { quickstartApp, type HttpApp } from '../support/http-app.js';

const path = '/api/webhooks/wh_crmCustomerChanged01';
const secret = 'quickstart-webhook-secret';

describe('the quickstart webhook, end to end', () => {
  let app: HttpApp;
  before(async () => {
    app = await quickstartApp();
  });
  after(() => app.close());

  const queued = async () => Number((await app.db.knex('queue_items').count({ n: '*' }).first())?.n);

  it('starts the sync with the secret, and only then', async () => {
    const before = await queued();
    assert.equal((await app.call('POST', path, { token: null, body: { id: 1, event: 'customer.updated' } })).status, 403);
    const answer = await app.call('POST', path, { token: null, body: { id: 1, event: 'customer.updated' }, headers: { service_webhooksecret: secret } });
    assert.ok(answer.status === 200 || answer.status === 204, answer.text);
    assert.equal(await queued(), before + 1);
    const entry = await app.db.knex('webhook_log').where({ webhook_id: 'wh_crmCustomerChanged01', status: answer.status }).first();
    assert.ok(entry?.queue_item_id, 'the log entry names the queue item');
  });

  it('starts nothing for a deleted customer (the condition)', async () => {
    const before = await queued();
    const answer = await app.call('POST', path, { token: null, body: { id: 1, event: 'customer.deleted' }, headers: { authorization: `Bearer ${secret}` } });
    assert.equal(answer.status, 204);
    assert.equal(await queued(), before);
  });
});
