/**
 * Deeply nested JSON, on every engine: the webhooks refuse what the API routes refuse (400 past
 * `maxJsonDepth` levels, before anything is parsed or run), accept the deepest allowed body and
 * keep it whole in the call log, and a call-log entry is never lost for its payload — data that
 * cannot be serialized, or that the runtime database refuses (MariaDB's JSON columns hold 31
 * levels), is replaced by a note and the rest of the entry kept.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { maxJsonDepth } from '../../../../runtime/request/read-body.js';
import { callLogWriter, flushCallLog } from '../../../../runtime/webhooks/log/call-log-writer.js';
import type { WebhookCallRecord } from '../../../../runtime/webhooks/log/record-call.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { engineApp, type HttpApp } from '../../../support/http-app.js';

const saveAccount = 'wh_deepSaveAccount00001';
const files = {
  'deep-webhooks.yaml': `kind: Webhook
id: ${saveAccount}
active: true
logPayload: true
action: saveWithSystem
system: erp
object: Account
writeMapping: '{ "AccountNumber": number, "AccountName": name }'
`,
};

/** `levels` arrays, one inside the other, around a string (as JSON text: `[[…["x"]…]]`). */
function nestedText(levels: number): string {
  return `${'['.repeat(levels)}"x"${']'.repeat(levels)}`;
}

function nested(levels: number): unknown {
  let value: unknown = 'x';
  for (let level = 0; level < levels; level += 1) value = [value];
  return value;
}

await describeEachDatabase('deeply nested JSON', (database) => {
  let app: HttpApp;
  before(async () => {
    app = await engineApp(database(), { files });
  });
  after(() => app.close());

  describe('requests', () => {
    const post = (path: string, raw: string) => app.call('POST', path, { raw, headers: { 'content-type': 'application/json' } });
    const log = async () => (await app.get(`/api/console/webhooks/${saveAccount}/log?limit=1`)).json.entries[0];

    it('a webhook refuses 100,000 levels with 400 naming the limit, runs nothing, and logs the call', async () => {
      const before = await app.erp('accounts').count({ n: '*' });
      const answer = await post(`/api/webhooks/${saveAccount}`, `{"number": "D-1", "name": "deep", "extra": ${nestedText(100_000)}}`);
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.type, 'application/problem+json');
      assert.match(answer.json.detail, new RegExp(`deeper than ${maxJsonDepth} levels \\(at character \\d+\\)`));
      assert.deepEqual(await app.erp('accounts').count({ n: '*' }), before, 'nothing was saved');
      const entry = await log();
      assert.equal(entry.status, 400);
    });

    it('the API routes refuse the same nesting with the same answer', async () => {
      const answer = await post(
        '/api/AddAction',
        `{"ProcessId": "crm-customers-to-erp", "StartType": "manual", "ActionParams": ${nestedText(100_000)}}`,
      );
      assert.equal(answer.status, 400, answer.text);
      assert.match(answer.json.detail, new RegExp(`deeper than ${maxJsonDepth} levels`));
      assert.equal(
        await app.db
          .knex('queue_items')
          .count({ n: '*' })
          .first()
          .then((row) => Number(row?.n)),
        0,
        'no item was enqueued',
      );
    });

    it(`a webhook body ${maxJsonDepth} levels deep is saved and kept whole in the call log`, async () => {
      // The object is level 1, so `extra` adds maxJsonDepth − 1 levels.
      const body = `{"number": "D-2", "name": "deepest allowed", "extra": ${nestedText(maxJsonDepth - 1)}}`;
      const answer = await post(`/api/webhooks/${saveAccount}`, body);
      assert.ok(answer.status === 200 || answer.status === 204, answer.text);
      assert.equal((await app.erp('accounts').where({ AccountNumber: 'D-2' }).first())?.AccountName, 'deepest allowed');
      const entry = await app.get(`/api/console/webhooks/${saveAccount}/log/${(await log()).id}`);
      assert.deepEqual(entry.json.payload.data.extra, nested(maxJsonDepth - 1));
      assert.equal(entry.json.replayable, true);
    });

    it(`one level more is refused`, async () => {
      const answer = await post(
        `/api/webhooks/${saveAccount}`,
        `{"number": "D-3", "name": "too deep", "extra": ${nestedText(maxJsonDepth)}}`,
      );
      assert.equal(answer.status, 400, answer.text);
    });
  });

  describe('the call log', () => {
    /** Writes a call of the webhook through the endpoint's writer and reads the entry back through the console API. */
    const recordAndRead = async (data: unknown, responseBody: unknown = { ok: true }) => {
      const id = randomUUID();
      const record: WebhookCallRecord = {
        id,
        webhookId: saveAccount,
        at: new Date(),
        method: 'POST',
        status: 200,
        durationMs: 3,
        ticker: [],
        request: {
          method: 'POST',
          data,
          query: { source: 'test' },
          headers: { 'content-type': 'application/json' },
          rawBody: Buffer.alloc(0),
        },
        response: { status: 200, body: responseBody },
        logPayload: true,
        retention: '30d',
      };
      // The app's own writer (one per database; the logger is the app's, given when it was made).
      await callLogWriter(app.db, pino({ level: 'silent' })).add(record);
      await flushCallLog(app.db);
      const answer = await app.get(`/api/console/webhooks/${saveAccount}/log/${id}`);
      assert.equal(answer.status, 200, `the entry was lost: ${answer.text}`);
      return answer.json;
    };

    it('keeps an entry whose data is nested too deeply to serialize, with a note instead of the data', async () => {
      const entry = await recordAndRead({ deep: nested(100_000) });
      assert.match(entry.payload.note, /the request data could not be stored: it is nested too deeply/);
      assert.equal(entry.payload.data, undefined);
      assert.deepEqual(entry.payload.query, { source: 'test' });
      assert.equal(entry.payload.headers['content-type'], 'application/json');
      assert.deepEqual(entry.response.body, { ok: true });
      assert.equal(entry.replayable, false);
      await app.post(`/api/console/webhooks/${saveAccount}/log/${entry.id}/pin`);
      const replay = await app.post(`/api/console/webhooks/${saveAccount}/log/${entry.id}/replay`);
      assert.equal(replay.status, 409);
      assert.match(replay.json.detail, /nested too deeply/);
    });

    it('keeps an entry whose response body is nested too deeply to serialize, with a note', async () => {
      const entry = await recordAndRead({ a: 1 }, nested(100_000));
      assert.deepEqual(entry.payload.data, { a: 1 });
      assert.match(entry.response.note, /the response body could not be stored: it is nested too deeply/);
    });

    it('keeps an entry whose payload the runtime database refuses (MariaDB: 40 levels), with a note', async () => {
      const entry = await recordAndRead({ deep: nested(40) }, nested(40));
      if (database().engine === 'mariadb') {
        assert.match(entry.payload.note, /refused by the runtime database/);
        assert.deepEqual(entry.payload.query, { source: 'test' });
        assert.match(entry.response.note, /refused by the runtime database/);
        assert.equal(entry.replayable, false);
      } else {
        assert.deepEqual(entry.payload.data, { deep: nested(40) });
        assert.deepEqual(entry.response.body, nested(40));
      }
    });
  });
});
