/**
 * Writes of the odata connector against SAP CAP, beyond the shared suite, for each way of sending
 * them (connection.batch json, multipart, never), through a recording proxy:
 *
 * - writeMany: one lookup and one `$batch` for a window of writes, one changeset per record; answers
 *   in request order; a record the service refuses fails alone and leaves nothing behind; the same
 *   record twice in a batch is written as the writes one after the other would.
 * - A create that meets a record created since the lookup (the service refuses the key) is stored
 *   as an update of it.
 * - ETags: If-Match is sent (CAP wants it), and a record changed since the lookup is refused 412 →
 *   'rejected'.
 * - Refusals name the fields the service pointed at, in our words, never the service's.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Connection, RecordData, WriteResult } from '../../../../connectors/connection.js';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import * as odata from '../../../../connectors/odata/index.js';
import { parseExpression } from '../../../../definitions/expression/index.js';
import { describeWithODataServer } from '../../../support/odata-server.js';
import { crmSystem, createCrm, post } from './odata-crm.js';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.js';

async function readOne(connection: Connection, object: string, id: Record<string, unknown>): Promise<RecordData | undefined> {
  for await (const page of connection.read(object, { id })) return page[0];
  return undefined;
}

function summary(answers: ReadonlyArray<WriteResult | ConnectorError>): unknown[] {
  return answers.map((answer) =>
    answer instanceof ConnectorError ? `${answer.code}: ${answer.message}` : `${answer.action} ${JSON.stringify(answer.key)}`,
  );
}

for (const batch of ['json', 'multipart', 'never'] as const) {
  await describeWithODataServer(`odata connector writes (batch: ${batch})`, {}, (server) => {
    let proxy: RecordingProxy;
    let connection: Connection;
    before(async () => {
      await createCrm(server());
      proxy = await startRecordingProxy(server().url);
      const system = crmSystem(server(), {}, { baseUrl: proxy.url, batch });
      system.objects.Contract = { entitySet: 'Contracts', key: ['code'], fields: { code: { type: 'String' }, title: { type: 'String' } } };
      system.objects.Device = {
        entitySet: 'Devices',
        key: ['serial'],
        fields: { serial: { type: 'String' }, uid: { type: 'String' }, name: { type: 'String' } },
      };
      connection = odata.createConnection(system, { baseDirectory: process.cwd() });
    });
    after(async () => {
      await connection?.close();
      await proxy?.close();
    });

    test('writeMany: one lookup and one $batch, a changeset per record, answers in order, refusals alone', async () => {
      await connection.describe('Customer');
      await readOne(connection, 'Customer', { id: 1 }); // $metadata read before counting
      proxy.requests.length = 0;
      const answers = await connection.writeMany('Customer', [
        { values: { id: 2001, name: 'New one', score: 5 }, groups: { addresses: { main: { city: 'Oslo' } } } },
        { values: { id: 1, score: 99 } },
        { values: { id: 2, notes: 'two' }, groups: { addresses: { main: { city: 'Bergen' }, invoice: { street: 'Box 2' } } } },
        { values: { id: 3, name: 'not written' }, onMatch: 'skip' },
        { match: { active: true }, values: { notes: 'x' } },
        { values: { id: 2006, name: 'x', score: 'abc' } },
        { values: { id: 2002, name: 'Refused' }, groups: { addresses: { main: { country: 'GBRX' } } } },
        { values: { id: 2003, name: 'Plain' } },
      ]);
      assert.deepEqual(summary(answers), [
        'created {"id":2001}',
        'updated {"id":1}',
        'updated {"id":2}',
        'skipped {"id":3}',
        'rejected: Customer: more than one record matches active; nothing was written',
        "invalid-value: Customer.score: expected a whole number, got 'abc'",
        'rejected: Customer: the service refused the values (HTTP 400); it named Customer.addresses[main].country',
        'created {"id":2003}',
      ]);
      const refused = answers[6] as ConnectorError;
      assert.doesNotMatch(refused.message, /GBRX|valid String/);
      assert.ok(refused.cause, 'the service answer is kept as the cause');
      const batches = proxy.requests.filter((request) => request.url.endsWith('/$batch'));
      const writes = proxy.requests.filter((request) => request.method !== 'GET' && !request.url.endsWith('/$batch'));
      if (batch === 'never') {
        assert.equal(batches.length, 0);
        assert.equal(writes.length, 7, JSON.stringify(writes.map((request) => `${request.method} ${request.url}`)));
      } else {
        assert.equal(batches.length, 1);
        assert.equal(writes.length, 0);
      }
      assert.ok(proxy.requests.filter((request) => request.method === 'GET').length <= 3, 'the lookups');
      assert.deepEqual((await readOne(connection, 'Customer', { id: 2001 }))?.addresses, {
        main: { street: null, city: 'Oslo', zip: null, country: null },
      });
      assert.equal((await readOne(connection, 'Customer', { id: 1 }))?.score, 99);
      const two = (await readOne(connection, 'Customer', { id: 2 }))!;
      const addresses = two.addresses as Record<string, RecordData>;
      assert.deepEqual([two.notes, addresses.main?.city, addresses.invoice?.street], ['two', 'Bergen', 'Box 2']);
      assert.equal((await readOne(connection, 'Customer', { id: 3 }))?.name, 'ADA LOVELACE');
      assert.equal(await readOne(connection, 'Customer', { id: 2002 }), undefined, 'nothing of a refused record is stored');
    });

    test("writeMany: a changeset whose answer cannot be read is never sent again, and is that record's error", async (t) => {
      if (batch === 'never') return t.skip('no $batch');
      proxy.requests.length = 0;
      // The second changeset's answer garbled after the service stored it: its outcome is unknown.
      proxy.rewrite = (request, body) => {
        if (!request.url.endsWith('/$batch')) return body;
        if (batch === 'multipart')
          return body.replace(/HTTP\/1\.1 201 Created/g, (line, offset) => (offset === body.lastIndexOf(line) ? 'garbled' : line));
        const answer = JSON.parse(body) as { responses: Array<Record<string, unknown>> };
        for (const response of answer.responses) if (response.id === 'r1-0') response.status = 'garbled';
        return JSON.stringify(answer);
      };
      try {
        const answers = await connection.writeMany('Customer', [
          { values: { id: 2101, name: 'First' } },
          { values: { id: 2102, name: 'Second' } },
        ]);
        assert.equal(summary(answers)[0], 'created {"id":2101}');
        const unknown = answers[1];
        assert.ok(unknown instanceof ConnectorError && unknown.code === 'unavailable', String(summary(answers)[1]));
        assert.match(unknown.message, /may have been written, so it was not sent again/);
        assert.equal(proxy.requests.filter((request) => request.url.endsWith('/$batch')).length, 1);
        assert.equal(proxy.requests.filter((request) => request.method === 'POST' && !request.url.endsWith('/$batch')).length, 0);
      } finally {
        proxy.rewrite = undefined;
      }
      assert.equal((await readOne(connection, 'Customer', { id: 2102 }))?.name, 'Second');
    });

    test('writeMany: a service that fails partway answers the writes made, and its error for the rest', async () => {
      // The same record twice: the second write is looked up after the first is stored (a second window).
      const writes = [
        { values: { id: 2201, name: 'Kept' } },
        { values: { id: 2201, name: 'Lost' } },
        { values: { id: 2202, name: 'Lost' } },
      ];
      let sent = 0;
      proxy.before = (request) => {
        if (request.method !== 'GET' && ++sent > 1) throw new Error('the service went away');
      };
      try {
        const answers = await connection.writeMany('Customer', writes);
        assert.equal(summary(answers)[0], 'created {"id":2201}');
        for (const lost of answers.slice(1)) assert.ok(lost instanceof ConnectorError && lost.code === 'unavailable', String(lost));
        // Nothing written at all: a $batch that fails fails the whole call (one by one, a 5xx may be one record's own).
        sent = 1;
        const alone = connection.writeMany('Customer', [{ values: { id: 2203, name: 'Lost' } }]);
        if (batch === 'never') assert.equal(((await alone)[0] as ConnectorError).code, 'unavailable');
        else await assert.rejects(alone, { code: 'unavailable' });
      } finally {
        proxy.before = undefined;
      }
      assert.equal((await readOne(connection, 'Customer', { id: 2201 }))?.name, 'Kept');
      assert.equal(await readOne(connection, 'Customer', { id: 2202 }), undefined);
    });

    test('a match value written another way finds the same record: GUIDs in either case, date-times in any zone', async () => {
      const uid = '0f8fad5b-d9cb-469f-a165-70867728950e';
      assert.equal(
        summary([await connection.write('Device', { values: { serial: `d-${batch}`, uid, name: 'one' } })])[0],
        `created {"serial":"d-${batch}"}`,
      );
      const id = batch === 'json' ? 2401 : batch === 'multipart' ? 2402 : 2403;
      const at = `2024-01-0${id - 2400}T09:00:00.000Z`;
      await connection.write('Customer', { values: { id, name: 'Timed', updated_at: at } });
      const answers = await connection.writeMany('Device', [{ match: { uid: uid.toUpperCase() }, values: { name: 'two' } }]);
      assert.deepEqual(summary(answers), [`updated {"serial":"d-${batch}"}`]);
      assert.deepEqual(summary([await connection.write('Device', { match: { uid: uid.toUpperCase() }, values: { name: 'three' } })]), [
        `updated {"serial":"d-${batch}"}`,
      ]);
      const zoned = `2024-01-0${id - 2400}T10:00:00+01:00`;
      assert.deepEqual(summary(await connection.writeMany('Customer', [{ match: { updated_at: zoned }, values: { notes: 'found' } }])), [
        `updated {"id":${id}}`,
      ]);
      // Two writes of one record, its key written as a number and as text: the second sees the first.
      assert.deepEqual(
        summary(
          await connection.writeMany('Customer', [
            { values: { id: 2410 + id, name: 'a' } },
            { match: { id: String(2410 + id) }, values: { notes: 'b' } },
          ]),
        ),
        [`created {"id":${2410 + id}}`, `updated {"id":${2410 + id}}`],
      );
      assert.equal((await readOne(connection, 'Customer', { id }))?.notes, 'found');
      const devices: RecordData[] = [];
      for await (const page of connection.read('Device', { filter: parseExpression(`serial = 'd-${batch}'`) })) devices.push(...page);
      assert.deepEqual(devices, [{ serial: `d-${batch}`, uid, name: 'three' }]);
    });

    test('writeMany: the same record twice is written as one write after the other', async () => {
      const answers = await connection.writeMany('Customer', [
        { values: { id: 2004, name: 'First' } },
        { values: { id: 2004, score: 4 } },
        { match: { email: 'nobody@example.com' }, values: { id: 2007, name: 'By email' } },
        { match: { email: 'nobody@example.com' }, values: { notes: 'found' } },
      ]);
      assert.deepEqual(summary(answers), ['created {"id":2004}', 'updated {"id":2004}', 'created {"id":2007}', 'updated {"id":2007}']);
      assert.deepEqual(
        [await readOne(connection, 'Customer', { id: 2004 }), await readOne(connection, 'Customer', { id: 2007 })].map((record) => [
          record?.name,
          record?.score,
          record?.email,
          record?.notes,
        ]),
        [
          ['First', 4, null, null],
          ['By email', null, 'nobody@example.com', 'found'],
        ],
      );
    });

    test('a create meeting a record created since the lookup updates it', async () => {
      let racing: number | undefined = 2005;
      proxy.before = async (request) => {
        if (racing === undefined || request.method !== 'POST') return;
        const id = racing;
        racing = undefined;
        await post(server(), 'Customers', { id, name: 'Created meanwhile', score: 1 });
      };
      try {
        assert.deepEqual(await connection.write('Customer', { values: { id: 2005, name: 'Written', notes: 'mine' } }), {
          action: 'updated',
          key: { id: 2005 },
        });
        racing = 2008;
        const [answer] = await connection.writeMany('Customer', [{ values: { id: 2008, name: 'Written' } }]);
        assert.deepEqual(answer, { action: 'updated', key: { id: 2008 } });
      } finally {
        proxy.before = undefined;
      }
      const record = await readOne(connection, 'Customer', { id: 2005 });
      assert.deepEqual([record?.name, record?.score, record?.notes], ['Written', 1, 'mine']);
    });

    test('a create of a key that exists, found by another match, is the service refusal', async () => {
      const error = await connection
        .write('Customer', { match: { email: 'nobody-else@example.com' }, values: { id: 1, name: 'Clash' } })
        .then(
          () => assert.fail('written'),
          (caught: unknown) => caught as ConnectorError,
        );
      assert.ok(error instanceof ConnectorError);
      // SAP CAP on SQLite answers a duplicate key with HTTP 500: the service failed, in our words.
      assert.equal(error.code, 'unavailable');
      assert.doesNotMatch(error.message, /UNIQUE|constraint|SQLITE/i);
    });

    test('ETags: If-Match with the ETag read, and a record changed since then is refused', async () => {
      await post(server(), 'Contracts', { code: 'c1', title: 'one' });
      assert.deepEqual(await connection.write('Contract', { values: { code: 'c1', title: 'two' } }), {
        action: 'updated',
        key: { code: 'c1' },
      });
      assert.equal((await readOne(connection, 'Contract', { code: 'c1' }))?.title, 'two');
      proxy.before = async (request) => {
        if (!(request.method === 'PATCH' || request.url.endsWith('/$batch'))) return;
        proxy.before = undefined;
        await new Promise((resolve) => setTimeout(resolve, 5));
        const current = await fetch(new URL("Contracts('c1')", server().url)).then((answer) => answer.headers.get('etag')!);
        const changed = await fetch(new URL("Contracts('c1')", server().url), {
          method: 'PATCH',
          headers: { 'content-type': 'application/json', 'if-match': current },
          body: JSON.stringify({ title: 'changed meanwhile' }),
        });
        assert.equal(changed.status, 200);
      };
      const answers = await connection.writeMany('Contract', [{ values: { code: 'c1', title: 'three' } }]);
      const refused = answers[0] as ConnectorError;
      assert.ok(refused instanceof ConnectorError, JSON.stringify(answers));
      assert.equal(refused.code, 'rejected');
      assert.equal(refused.message, 'Contract: the record changed since it was read (HTTP 412); nothing was written, write it again');
      assert.equal((await readOne(connection, 'Contract', { code: 'c1' }))?.title, 'changed meanwhile');
    });
  });
}
