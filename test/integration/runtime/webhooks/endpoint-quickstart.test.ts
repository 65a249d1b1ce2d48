/**
 * The quickstart's webhook end to end through the real action dispatcher, as the curl of docs/webhooks.md
 * does it: the secret, the condition, and the queue item the start creates.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { flushCallLog } from '../../../../runtime/webhooks/log/call-log-writer.js';
import { quickstartApp, type HttpApp } from '../../../support/http-app.js';

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
    const answer = await app.call('POST', path, {
      token: null,
      body: { id: 1, event: 'customer.updated' },
      headers: { service_webhooksecret: secret },
    });
    assert.ok(answer.status === 200 || answer.status === 204, answer.text);
    assert.equal(await queued(), before + 1);
    // The endpoint writes its log behind the answers; reading the table directly needs a flush.
    await flushCallLog(app.db);
    const entry = await app.db.knex('webhook_log').where({ webhook_id: 'wh_crmCustomerChanged01', status: answer.status }).first();
    assert.ok(entry?.queue_item_id, 'the log entry names the queue item');
    assert.ok(entry?.payload, 'the quickstart webhook logs payloads');
    // The refused call is logged, but whoever lacks the secret cannot fill the log with payloads.
    const refused = await app.db.knex('webhook_log').where({ webhook_id: 'wh_crmCustomerChanged01', status: 403 }).first();
    assert.ok(refused, 'the refused call is in the log');
    assert.equal(refused.payload, null);
  });

  it('starts nothing for a deleted customer (the condition)', async () => {
    const before = await queued();
    const answer = await app.call('POST', path, {
      token: null,
      body: { id: 1, event: 'customer.deleted' },
      headers: { authorization: `Bearer ${secret}` },
    });
    assert.equal(answer.status, 204);
    assert.equal(await queued(), before);
  });
});
