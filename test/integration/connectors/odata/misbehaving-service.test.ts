/**
 * The odata connector against a service that misbehaves, played by a loopback server (SAP CAP
 * never does these things): next links that go round in circles, pages past the $top asked for,
 * matches so broad that their lookup would page on and on, /$count answers that are no count,
 * creates answered without the entity, answers of a shape that would make a raw TypeError, pages
 * of entities sent already (a service that ignores $skip), and a $metadata past the limits on a
 * model.
 * Each is answered through the Connection in our words, with the requests it took counted.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Connection } from '../../../../connectors/connection.js';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import * as odata from '../../../../connectors/odata/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import { json, logged, RecordingServer, rejectsWith, type Hit } from '../web/web-test-support.js';

const METADATA = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
  <edmx:DataServices>
    <Schema Namespace="T" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <EntityType Name="Thing">
        <Key><PropertyRef Name="id"/></Key>
        <Property Name="id" Type="Edm.Int32" Nullable="false"/>
        <Property Name="name" Type="Edm.String"/>
      </EntityType>
      <EntityContainer Name="C"><EntitySet Name="Things" EntityType="T.Thing"/></EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>`;

let service: RecordingServer;
before(async () => {
  service = await RecordingServer.start();
});
after(async () => {
  await service.close();
});

/** Answers $metadata, and everything else with `answer`. */
function serve(answer: (hit: Hit, res: ServerResponse) => void): void {
  service.answerWith((hit, res) => {
    if (hit.url.startsWith('/svc/$metadata')) {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(METADATA);
      return;
    }
    answer(hit, res);
  });
}

const things = () => service.hits.filter((hit) => hit.url.startsWith('/svc/Things'));

function connect(connection: Record<string, unknown> = {}): Connection {
  const system = {
    kind: 'System',
    id: 'fake',
    connector: 'odata',
    connection: { baseUrl: `${service.origin}/svc/`, batch: 'never', retries: { max: 0, maxWait: '1s' }, ...connection },
    objects: {
      Thing: { entitySet: 'Things', key: ['id'], fields: { id: { type: 'Integer' }, name: { type: 'String' } } },
    },
    queries: {},
  } as unknown as SystemDefinition;
  return odata.createConnection(system, { baseDirectory: process.cwd() });
}

async function readAll(connection: Connection, request: Parameters<Connection['read']>[1] = {}): Promise<unknown[]> {
  const records: unknown[] = [];
  for await (const page of connection.read('Thing', request)) records.push(...page);
  return records;
}

describe('next links', () => {
  test('a next link followed already stops the read and the query: unavailable, not for ever', async () => {
    serve((_hit, res) => json(res, 200, { value: [{ id: 1, name: 'a' }], '@odata.nextLink': 'Things?$skiptoken=same' }));
    const connection = connect();
    await rejectsWith(readAll(connection), 'unavailable', /^system 'fake' pages in circles \(a next link it had sent already\)/);
    assert.equal(things().length, 2);
    service.hits.length = 0;
    await rejectsWith(connection.query({ statement: 'Things' }), 'unavailable', /pages in circles/);
    assert.equal(things().length, 2);
  });

  test('empty pages that keep linking on stop after a few', async () => {
    let n = 0;
    serve((_hit, res) => json(res, 200, { value: [], '@odata.nextLink': `Things?$skiptoken=${++n}` }));
    await rejectsWith(readAll(connect()), 'unavailable', /3 empty pages in a row, each with a next link/);
    assert.ok(things().length <= 4, String(things().length));
  });

  test('an entry that is no entity stops the read, where dropping it ended the read early and lost the rest', async () => {
    // The page is full ($top 2) only with the null: left out, the page looked like the last one.
    serve((hit, res) => json(res, 200, { value: hit.url.includes('skip') ? [{ id: 3, name: 'c' }] : [{ id: 1, name: 'a' }, null] }));
    await rejectsWith(
      readAll(connect(), { pageSize: 2 }),
      'unavailable',
      /^system 'fake' answered \/svc\/Things with value\[1\] null, not an entity/,
    );
    serve((_hit, res) => json(res, 200, { value: [{ id: 1, name: 'a' }, [2]] }));
    await rejectsWith(readAll(connect()), 'unavailable', /value\[1\] a list, not an entity/);
  });

  test('a free query stops reading pages once it has Limit rows', async () => {
    let n = 0;
    serve((_hit, res) =>
      json(res, 200, {
        value: [
          { id: ++n, name: 'x' },
          { id: ++n, name: 'x' },
        ],
        '@odata.nextLink': `Things?$skiptoken=${n}`,
      }),
    );
    const { rows } = await connect().query({ statement: 'Things', limit: 3 });
    assert.deepEqual(
      rows.map((row) => row.id),
      [1, 2, 3],
    );
    assert.equal(things().length, 2);
    assert.match(things()[0]!.url, /\$top=3/);
  });

  test('a next link that is not a URL is unavailable, not a TypeError', async () => {
    serve((_hit, res) => json(res, 200, { value: [{ id: 1 }], '@odata.nextLink': 'http://[not a host/Things' }));
    const error = await rejectsWith(readAll(connect()), 'unavailable', /^system 'fake' sent a next link that is not a URL$/);
    assert.ok(error.cause instanceof TypeError, 'the raw error only as the cause');
  });
});

describe('entities sent again', () => {
  const skipOf = (hit: Hit) => Number(new URL(hit.url, service.origin).searchParams.get('$skip') ?? 0);
  const entities = (ids: number[]) => ids.map((id) => ({ id, name: `n${id}` }));

  test('a service that ignores $skip is stopped at the second page of nothing new', async () => {
    serve((_hit, res) => json(res, 200, { value: entities([1, 2, 3, 4, 5]) }));
    await rejectsWith(
      readAll(connect({ maxPageSize: 5 })),
      'unavailable',
      /^system 'fake' answered Things with entities it had sent already, page after page \(5 of the 5 of the last page, the first Thing id 1\), as if it ignored \$skip; the read was stopped$/,
    );
    assert.equal(things().length, 3);
  });

  test('so is one that answers two pages in turn', async () => {
    serve((hit, res) => json(res, 200, { value: entities(Math.floor(skipOf(hit) / 3) % 2 === 0 ? [1, 2, 3] : [4, 5, 6]) }));
    await rejectsWith(readAll(connect({ maxPageSize: 3 })), 'unavailable', /the first Thing id 4\), as if it ignored \$skip/);
    assert.equal(things().length, 4);
  });

  test('an entity moved a page on by an insert during the read comes once', async () => {
    const stored = entities([1, 2, 3, 4, 5, 6, 7]);
    serve((hit, res) => {
      const skip = skipOf(hit);
      json(res, 200, { value: stored.slice(skip, skip + 3) });
      // Inserted ahead of the reading position after the first page: 3 comes again on the second.
      if (skip === 0) stored.unshift({ id: 0, name: 'n0' });
    });
    const records = (await readAll(connect({ maxPageSize: 3 }))) as Array<{ id: number }>;
    assert.deepEqual(
      records.map((record) => record.id),
      [1, 2, 3, 4, 5, 6, 7],
    );
  });
});

describe('lookups of many writes', () => {
  test('a match that selects page after page costs at most two lookups per write', async () => {
    let n = 0;
    serve((hit, res) => {
      // $top=2 answers two; the chunk's filter one entity a page, with a next link for ever.
      if (hit.url.includes('%24top=2') || hit.url.includes('$top=2'))
        return json(res, 200, {
          value: [
            { id: 1, name: 'x' },
            { id: 2, name: 'x' },
          ],
        });
      json(res, 200, { value: [{ id: ++n, name: 'x' }], '@odata.nextLink': `Things?$skiptoken=${n}` });
    });
    const answers = await connect().writeMany('Thing', [{ match: { name: 'x' }, values: { name: 'y' } }]);
    assert.ok(answers[0] instanceof ConnectorError && answers[0].code === 'rejected', String(answers[0]));
    assert.match((answers[0] as ConnectorError).message, /more than one record matches name/);
    assert.equal(things().length, 2);
  });
});

describe('$batch formats', () => {
  const batches = () => service.hits.filter((hit) => hit.url.startsWith('/svc/$batch'));
  const writesIn = (hit: Hit) => /"method":"POST"|^POST /m.test(hit.body);
  const creates = [{ values: { id: 1, name: 'a' } }, { values: { id: 2, name: 'b' } }];

  test('auto asks with a batch that only reads; changesets a JSON batch was answered 400 for are not sent again as multipart', async () => {
    // The service takes JSON batches, then writes one and answers it 400 (a gateway failing its answer).
    serve((hit, res) => {
      if (!hit.url.startsWith('/svc/$batch')) return json(res, 200, { value: [] });
      if (writesIn(hit)) return json(res, 400, { error: { message: 'answer lost' } });
      json(res, 200, { responses: [{ id: 'r0-0', status: 200, body: { value: [] } }] });
    });
    service.hits.length = 0;
    const answers = await connect({ batch: 'auto' })
      .writeMany('Thing', creates)
      .catch((error: unknown) => [error]);
    assert.ok(
      answers.every((answer) => answer instanceof ConnectorError),
      String(answers),
    );
    assert.deepEqual(
      batches().map((hit) => [String(hit.headers['content-type']).split(';')[0], writesIn(hit)]),
      [
        ['application/json', false],
        ['application/json', true],
      ],
      'the probe, then the changesets once, in JSON only',
    );
  });

  test('auto sends the changesets as multipart only, once a service refused the JSON batch that only reads', async () => {
    serve((hit, res) => {
      if (!hit.url.startsWith('/svc/$batch')) return json(res, 200, { value: [] });
      if (String(hit.headers['content-type']).startsWith('application/json'))
        return json(res, 400, { error: { message: 'no JSON batch' } });
      res.writeHead(200, { 'content-type': 'multipart/mixed; boundary=b' });
      res.end('--b--\r\n');
    });
    service.hits.length = 0;
    await connect({ batch: 'auto' })
      .writeMany('Thing', creates)
      .catch(() => undefined);
    assert.deepEqual(
      batches().map((hit) => [String(hit.headers['content-type']).split(';')[0], writesIn(hit)]),
      [
        ['application/json', false],
        ['multipart/mixed', false],
        ['multipart/mixed', true],
      ],
    );
  });
});

describe('answers of the wrong shape', () => {
  test('a /$count that is not a whole number is refused as unreadable', async () => {
    for (const text of ['', ' ', '12abc', '1e3', '0x10', '-1', '3.5']) {
      serve((_hit, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(text);
      });
      await rejectsWith(
        connect().count('Thing'),
        'unavailable',
        /^system 'fake' answered Things\/\$count with something that is not a count$/,
      );
    }
    serve((_hit, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(' 42\n');
    });
    assert.equal(await connect().count('Thing'), 42);
  });

  test('a read by key answered with null is unavailable, with no stack or upstream text in the message', async () => {
    serve((_hit, res) => json(res, 200, null));
    const error = await rejectsWith(
      readAll(connect(), { id: { id: 7 } }),
      'unavailable',
      /^system 'fake' answered \/svc\/Things\(7\) with something that is not an entity$/,
    );
    assert.doesNotMatch(error.message, /TypeError|\n\s+at /);
  });

  test('a create answered 2xx without the entity: the key from OData-EntityId or Location, else the values sent, else an error', async () => {
    const created = (headers: Record<string, string>, body: string) =>
      serve((hit, res) => {
        // Nothing found, by key or by filter.
        if (hit.method === 'GET') return hit.url.includes('Things(') ? json(res, 404, {}) : json(res, 200, { value: [] });
        res.writeHead(201, headers);
        res.end(body);
      });
    created({ 'odata-entityid': `${service.origin}/svc/Things(17)` }, '');
    assert.deepEqual(await connect().write('Thing', { match: { name: 'n' }, values: { name: 'n' } }), {
      action: 'created',
      key: { id: 17 },
    });
    created({ location: 'Things(id=18)', 'content-type': 'text/html' }, '<html>Created</html>');
    assert.deepEqual(await connect().write('Thing', { match: { name: 'n' }, values: { name: 'n' } }), {
      action: 'created',
      key: { id: 18 },
    });
    created({ 'content-type': 'text/plain' }, 'ok');
    assert.deepEqual(await connect().write('Thing', { values: { id: 19, name: 'n' } }), { action: 'created', key: { id: 19 } });
    created({}, '');
    await rejectsWith(
      connect().write('Thing', { match: { name: 'n' }, values: { name: 'n' } }),
      'unavailable',
      /^Thing: system 'fake' did not return the created entity/,
    );
  });

  test('a header value fetch refuses is unavailable in our words, the value only in the cause', async () => {
    serve((_hit, res) => json(res, 200, { value: [] }));
    const error = await rejectsWith(
      readAll(connect({ headers: { 'x-tenant': 'bad\nvalue' } })),
      'unavailable',
      /^system 'fake': GET \/svc\/\$metadata could not be sent$/,
    );
    assert.ok(error.cause instanceof TypeError);
    assert.doesNotMatch(logged({ message: error.message }), /bad/);
  });
});

describe('$metadata', () => {
  test('a BaseType chain past the limit is unavailable naming it, and no request for the records is sent', async () => {
    const chain = Array.from(
      { length: 102 },
      (_, index) =>
        `<EntityType Name="C${index}"${index === 0 ? '' : ` BaseType="T.C${index - 1}"`}><Property Name="p${index}" Type="Edm.String"/></EntityType>`,
    ).join('');
    service.answerWith((_hit, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(METADATA.replace('<EntityContainer', `${chain}<EntityContainer`));
    });
    service.hits.length = 0;
    await rejectsWith(
      readAll(connect()),
      'unavailable',
      /^system 'fake': its \$metadata is past the odata connector's limits on a service's model \(type T\.C101 has 101 levels of BaseType above it, over the limit of 100\); check connection\.baseUrl/,
    );
    assert.equal(things().length, 0);
  });
});
