/**
 * The error edge: every failure is an RFC 9457 `application/problem+json` body from the one
 * catalogue; malformed JSON 400, other media types 415, bodies over the limit 413 (default 1 MiB,
 * configurable, with or without Content-Length), bad read parameters and write values 400, and
 * server-side failures 500/503 that carry no stack trace, SQL, driver text, file path or credential.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Connection } from '../../../../connectors/connection.js';
import { quickstartApp, tableContents, tokens, type Answer, type HttpApp } from '../../../support/http-app.js';

const MiB = 1024 * 1024;
const read = (name: string, value: unknown) => ({ name, value });
const bodyRoutes = [
  '/api/RunConnectionGetData/crm/Customer',
  '/api/RunConnectionGetDataMin/crm/Customer',
  '/api/RunConnectionGetQueryData/crm',
  '/api/RunConnectionSetData/crm/Customer',
  '/api/RunConnectionSetDataMin/crm/Customer',
];

/** The problem body as the catalogue makes it, for the answer's own status and path. */
function assertProblem(answer: Answer, status: number, code: string, detail?: RegExp): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.type, 'application/problem+json', answer.text);
  const { type, title, status: bodyStatus, detail: text, instance, requestId, errors, ...rest } = answer.json as Record<string, unknown>;
  assert.deepEqual(rest, {}, 'no other members');
  assert.equal(requestId, answer.headers.get('x-request-id'), 'the request id, as the X-Request-Id header answers it');
  assert.equal(type, `urn:syncline:problem:${code}`);
  assert.equal(typeof title, 'string');
  assert.equal(bodyStatus, status);
  assert.equal(typeof text, 'string');
  assert.equal(typeof instance, 'string');
  if (errors !== undefined) {
    assert.ok(Array.isArray(errors));
    for (const error of errors as unknown[]) assert.deepEqual(Object.keys(error as object).sort(), ['message', 'path']);
  }
  if (detail) assert.match(text as string, detail);
  assertNoInternals(answer);
}

/** Nothing in an answer that only the server should know. */
function assertNoInternals(answer: Answer): void {
  for (const leak of [
    /\bat \S+ \(/,
    /\.ts:\d+/,
    /node_modules/,
    /\/work\//,
    /\/tmp\//,
    /SQLITE_/,
    /\bselect\b.*\bfrom\b/i,
    /stack/i,
    /knex/i,
    /postgres:\/\//,
    /hunter2/,
    /ECONNREFUSED/,
  ]) {
    assert.doesNotMatch(answer.text, leak, `the answer shows ${leak}: ${answer.text}`);
  }
}

/** A POST whose body is streamed in chunks (no Content-Length), answered or cut off by the server. */
function chunkedPost(app: HttpApp, path: string, size: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${app.base}${path}`,
      { method: 'POST', headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    // The server may close the connection while the rest is still being sent; the answer counts.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

const brokenSystems = `
kind: System
id: ghost
connector: sql
connection: { client: sqlite3, filename: "\${env:CRM_DB}" }
objects:
  Phantom:
    table: phantom_table_secret
    key: [id]
    fields: { id: { type: Integer }, name: { type: String } }
---
kind: System
id: down
connector: sql
connection: { client: pg, url: "\${env:DOWN_URL}" }
objects:
  Thing:
    table: things
    key: [id]
    fields: { id: { type: Integer } }
---
kind: System
id: gone
connector: sql
connection: { client: sqlite3, filename: "\${env:GONE_DB}" }
objects:
  Thing:
    table: things
    key: [id]
    fields: { id: { type: Integer } }
`;

/** A driver failure the connector did not classify: its message holds SQL and a password. */
const leaky = Object.assign(new Error(`SELECT * FROM accounts WHERE password = 'hunter2' -- near "FROM": syntax error`), {
  code: 'SQLITE_ERROR',
});

describe('error answers', () => {
  let app: HttpApp;
  before(async () => {
    app = await quickstartApp({
      files: { 'broken-systems.yaml': brokenSystems },
      env: { DOWN_URL: 'postgres://syncline:hunter2@127.0.0.1:9/nowhere', GONE_DB: '/tmp/syncline-gone-hunter2/nothing-here.sqlite' },
      // The erp connection fails every operation with an error that is not a ConnectorError.
      connections: (pool) => ({
        async get(system) {
          const connection = await pool.get(system);
          if (system.id !== 'erp') return connection;
          const fail = () => Promise.reject(leaky);
          const failing: Connection = {
            describe: (object) => connection.describe(object),
            read: () => ({ [Symbol.asyncIterator]: () => ({ next: fail }) }),
            count: fail,
            query: fail,
            write: fail,
            writeMany: fail,
            checkWrite: () => {
              throw leaky;
            },
            check: fail,
            discover: fail,
            close: () => connection.close(),
          };
          return failing;
        },
      }),
    });
  });
  after(() => app.close());

  describe('bodies', () => {
    it('answers malformed JSON with 400 on every route that takes a body', async () => {
      for (const path of bodyRoutes) {
        for (const raw of ['{broken', '[{"name": "GETDATA_LIMIT", "value": "1"}', "{'single': 'quotes'}", '[1,]', 'undefined', '\u0000']) {
          const answer = await app.call('POST', path, { raw, headers: { 'content-type': 'application/json' } });
          assertProblem(answer, 400, 'malformed-json', /The body is not valid JSON/);
        }
      }
    });

    it('refuses an array past its limit in one finding, before looking at its 70,000 entries', async () => {
      const many = (entry: string) => `[${Array.from({ length: 70_000 }, () => entry).join(',')}]`;
      const bodies: Array<[string, string, RegExp]> = [
        ['/api/RunConnectionGetData/crm/Customer', many('{}'), /^The body holds 70000 entries; at most 20 are accepted\.$/],
        ['/api/RunConnectionGetDataMin/crm/Customer', many('{}'), /^The body holds 70000 entries; at most 20 are accepted\.$/],
        [
          '/api/RunConnectionSetData/crm/Customer',
          `{"columns":${many('{}')}}`,
          /^columns holds 70000 entries; at most 2000 are accepted\.$/,
        ],
        [
          '/api/RunConnectionSetData/crm/Customer',
          `{"columns":[{"name":"name","value":"x"}],"IDCOLUMNS":${many('1')}}`,
          /^idcolumns holds 70000 entries; at most 2000 are accepted\.$/,
        ],
        ['/api/RunConnectionGetQueryData/crm', `{"Statement":"select 1","columns":${many('{}')}}`, /^columns holds 70000 entries/],
        [
          '/api/AddAction',
          `{"ProcessId":"crm-customers-to-erp","StartType":"manual","ActionParams":${many('{}')}}`,
          /^ActionParams holds 70000 entries; at most 100/,
        ],
        [
          '/api/ExecuteProcess/crm-customers-to-erp',
          `{"StartType":"manual","ActionParams":${many('{}')}}`,
          /^ActionParams holds 70000 entries/,
        ],
      ];
      for (const [path, raw, detail] of bodies) {
        const answer = await app.call('POST', path, { raw, headers: { 'content-type': 'application/json' } });
        assertProblem(answer, 400, 'invalid-request', detail);
        assert.equal(answer.json.errors.length, 1, path);
      }
    });

    it('lists the first 50 of many findings and counts the rest', async () => {
      const columns = Array.from({ length: 300 }, (_, index) => ({ name: `field${index}`, columnType: 'Banana', value: 1 }));
      const answer = await app.call('POST', '/api/RunConnectionSetData/crm/Customer', { body: { columns } });
      assertProblem(answer, 400, 'invalid-request', /^300 fields are not right: \/columns\/0\/columnType, .* and 250 more\.$/);
      assert.equal(answer.json.errors.length, 50);
      assert.equal(answer.json.errors[49].path, '/columns/49/columnType');
    });

    it('refuses a key given twice in one object, which JSON.parse would settle by keeping the last copy', async () => {
      // The last copy would turn this update of customer 1 into the insert of a second Ada.
      const update =
        '{"name":"Customer","columns":[{"name":"name","columnType":"String","value":"Ada"}],"idcolumns":[{"name":"id","columnType":"Integer","value":1}],"idcolumns":[]}';
      const answer = await app.call('POST', '/api/RunConnectionSetData/crm/Customer', {
        raw: update,
        headers: { 'content-type': 'application/json' },
      });
      assertProblem(answer, 400, 'invalid-request', /The key "idcolumns" is given twice in one object \(at \/idcolumns\).*send it once/);
      assert.equal(answer.json.errors[0].path, '/idcolumns');
      const start = '{"ProcessId":"crm-customers-to-erp","StartType":"manual","WhereClause":"id = 1","WhereClause":""}';
      const started = await app.call('POST', '/api/AddAction', { raw: start, headers: { 'content-type': 'application/json' } });
      assertProblem(started, 400, 'invalid-request', /"WhereClause" is given twice/);
      const nested = '[{"name":"GETDATA_LIMIT","value":"1","value":"2"}]';
      const read = await app.call('POST', bodyRoutes[0]!, { raw: nested, headers: { 'content-type': 'application/json' } });
      assertProblem(read, 400, 'invalid-request', /"value" is given twice in one object \(at \/0\/value\)/);
    });

    it('refuses a whole number past 2^53, which JSON.parse would round to another value, naming it and the fix', async () => {
      const raw = '{"name":"Customer","columns":[{"name":"id","columnType":"Integer","value":9007199254740993}]}';
      const answer = await app.call('POST', '/api/RunConnectionSetData/crm/Customer', {
        raw,
        headers: { 'content-type': 'application/json' },
      });
      assertProblem(
        answer,
        400,
        'invalid-request',
        /The number 9007199254740993 \(at \/columns\/0\/value\) is past 2\^53.*this one as 9007199254740992\).*send it as a string of its exact digits/,
      );
      assert.equal(answer.json.errors[0].path, '/columns/0/value');
      // Written as a double (a fraction or an exponent), it is taken as the double it is.
      const double = await app.call('POST', bodyRoutes[0]!, {
        raw: '[{"name":"GETDATA_LIMIT","value":1e0}]',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(double.status, 200, double.text);
    });

    it("refuses a number past a double's range, which JSON.parse would make Infinity or 0 (1E-400 updated record 0)", async () => {
      for (const [number, becomes] of [
        ['1E-400', '0'],
        ['-1e400', '-Infinity'],
      ]) {
        const raw = `{"name":"Customer","columns":[{"name":"id","columnType":"Integer","value":${number}}]}`;
        const answer = await app.call('POST', '/api/RunConnectionSetData/crm/Customer', {
          raw,
          headers: { 'content-type': 'application/json' },
        });
        assertProblem(
          answer,
          400,
          'invalid-request',
          new RegExp(`The number ${number} \\(at /columns/0/value\\) is past the range .* make it ${becomes}; send it as a string`),
        );
        assert.equal(answer.json.errors[0].path, '/columns/0/value');
      }
    });

    it('refuses half of a surrogate pair, which would be stored as U+FFFD, and takes a whole pair', async () => {
      const lone = await app.call('POST', bodyRoutes[0]!, {
        raw: '[{"name":"GETDATA_WHERE","value":"name = \'\\udc00\'"}]',
        headers: { 'content-type': 'application/json' },
      });
      assertProblem(lone, 400, 'invalid-request', /The text at \/0\/value holds half of a surrogate pair/);
      const pair = await app.call('POST', bodyRoutes[0]!, {
        raw: '[{"name":"GETDATA_WHERE","value":"name = \'\\ud83d\\ude00\'"}]',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(pair.status, 200, pair.text);
    });

    it('never echoes the body in a malformed-JSON answer', async () => {
      const raw = '{"card": "4111-1111-1111-1111", oops}';
      const answer = await app.call('POST', bodyRoutes[0]!, { raw, headers: { 'content-type': 'application/json' } });
      assertProblem(answer, 400, 'malformed-json', /The body is not valid JSON/);
      assert.doesNotMatch(answer.text, /4111|oops/);
    });

    it('refuses a body that is not UTF-8 at its first such byte, instead of storing U+FFFD for it', async () => {
      // "café" in Latin-1: é is the single byte 0xE9.
      const raw = new Uint8Array(Buffer.from('["caf\u00e9"]', 'latin1'));
      const answer = await app.call('POST', bodyRoutes[1]!, { raw, headers: { 'content-type': 'application/json' } });
      assertProblem(answer, 400, 'malformed-json', /The body is not UTF-8 at byte 5 \(sent as Latin-1 or Windows-1252\?\)/);
      // A U+FFFD the body really holds is a character like any other.
      const holdsReplacement = await app.call('POST', bodyRoutes[1]!, { raw: '[]\ufffd', headers: { 'content-type': 'application/json' } });
      assertProblem(holdsReplacement, 400, 'malformed-json', /not valid JSON \(at character 2\)/);
    });

    it('takes a body that starts with a byte order mark, as RFC 8259 allows, instead of calling it broken JSON', async () => {
      const answer = await app.call('POST', bodyRoutes[1]!, { raw: '\ufeff[]', headers: { 'content-type': 'application/json' } });
      assert.equal(answer.status, 200, answer.text);
    });

    it('refuses a charset other than UTF-8 with 415, and takes UTF-8 however it is written', async () => {
      for (const charset of ['utf-16', 'ISO-8859-1', '"windows-1252"']) {
        assertProblem(
          await app.call('POST', bodyRoutes[1]!, { raw: '[]', headers: { 'content-type': `application/json; charset=${charset}` } }),
          415,
          'unsupported-media-type',
          new RegExp(`charset=${charset.replaceAll('"', '')} is not accepted: send it as UTF-8`),
        );
      }
      for (const charset of ['UTF-8', 'utf8', '"utf-8"']) {
        const answer = await app.call('POST', bodyRoutes[1]!, {
          raw: '[]',
          headers: { 'content-type': `application/json; charset=${charset}` },
        });
        assert.equal(answer.status, 200, charset);
      }
    });

    it('refuses a compressed body with 415 instead of parsing its bytes', async () => {
      const answer = await app.call('POST', bodyRoutes[0]!, {
        raw: '\u001f\u008b\u0008\u0000',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
      assertProblem(answer, 415, 'unsupported-media-type', /Content-Encoding gzip is not accepted/);
    });

    it('asks for a body where one is required', async () => {
      for (const path of bodyRoutes.slice(2))
        assertProblem(
          await app.call('POST', path, { headers: { 'content-type': 'application/json' } }),
          400,
          'malformed-json',
          /needs a JSON body/,
        );
    });

    // As `curl -X POST -H 'Content-Type: application/json'` sends it: no Content-Length at all.
    it('asks for a body when the request has none, not even a length of 0', async () => {
      const { port } = new URL(app.base);
      const socket = connect(Number(port), '127.0.0.1');
      socket.end(
        `POST ${bodyRoutes[2]} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tokens.admin}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n`,
      );
      let answer = '';
      for await (const chunk of socket) answer += String(chunk);
      assert.match(answer, /^HTTP\/1\.1 400 /);
      assert.match(answer, /application\/problem\+json/);
      assert.match(answer, /needs a JSON body/);
    });

    it('answers another media type with 415 and accepts JSON with parameters or a +json type', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']) {
        assertProblem(
          await app.call('POST', bodyRoutes[1]!, { raw: '[]', headers: { 'content-type': type } }),
          415,
          'unsupported-media-type',
          /Send the body as application\/json/,
        );
      }
      for (const type of ['application/json; charset=utf-8', 'APPLICATION/JSON', 'application/vnd.syncline+json']) {
        assert.equal((await app.call('POST', bodyRoutes[1]!, { raw: '[]', headers: { 'content-type': type } })).status, 200, type);
      }
    });

    it('answers a body over 1 MiB with 413 and takes one just under it', async () => {
      const padded = (size: number) => `[${' '.repeat(size - 2)}]`;
      assert.equal(
        (await app.call('POST', bodyRoutes[1]!, { raw: padded(MiB), headers: { 'content-type': 'application/json' } })).status,
        200,
      );
      assertProblem(
        await app.call('POST', bodyRoutes[1]!, { raw: padded(MiB + 1), headers: { 'content-type': 'application/json' } }),
        413,
        'body-too-large',
        /limit of 1048576 bytes/,
      );
      const document = (await app.get('/api/openapi.json')).json;
      assert.match(
        document.components.responses.TooLarge.description,
        /limit of 1048576 bytes/,
        'the interface description states the limit the server applies',
      );
    });

    it('answers a 2 MB write body with 413 and writes nothing', async () => {
      const before = await tableContents(app);
      const huge = 'x'.repeat(2 * 1000 * 1000);
      assertProblem(await app.post('/api/RunConnectionSetDataMin/crm/Customer', { name: huge }), 413, 'body-too-large');
      assertProblem(
        await app.post('/api/RunConnectionSetData/crm/Customer', { columns: [{ name: 'name', value: huge }] }),
        413,
        'body-too-large',
      );
      const streamed = await chunkedPost(app, '/api/RunConnectionSetDataMin/crm/Customer', 2 * 1000 * 1000);
      assert.equal(streamed.status, 413, 'without Content-Length the limit holds while reading');
      assert.equal(JSON.parse(streamed.text).type, 'urn:syncline:problem:body-too-large');
      assert.deepEqual(await tableContents(app), before);
      assert.equal((await app.post(bodyRoutes[1]!, [read('GETDATA_LIMIT', '1')])).status, 200, 'the server carries on');
    });

    it('takes a configured limit', async () => {
      const small = await quickstartApp({ bodyLimit: 1000 });
      try {
        const body = (size: number) => ({ raw: `[${' '.repeat(size - 2)}]`, headers: { 'content-type': 'application/json' } });
        assert.equal((await small.call('POST', bodyRoutes[1]!, body(1000))).status, 200);
        assertProblem(await small.call('POST', bodyRoutes[1]!, body(1001)), 413, 'body-too-large', /limit of 1000 bytes/);
        assert.equal((await chunkedPost(small, bodyRoutes[1]!, 5000)).status, 413);
        assert.match((await small.get('/api/openapi.json')).json.components.responses.TooLarge.description, /limit of 1000 bytes/);
      } finally {
        await small.close();
      }
    });
  });

  describe('read parameters', () => {
    const url = '/api/RunConnectionGetDataMin/crm/Customer';

    it('refuses a GETDATA_LIMIT or GETDATA_SKIP that is not a whole number of 0 or more', async () => {
      for (const name of ['GETDATA_LIMIT', 'GETDATA_SKIP']) {
        for (const value of [
          '-1',
          -5,
          '1.5',
          2.5,
          '1e3',
          '0x10',
          'ten',
          '',
          ' ',
          '+1',
          '1 2',
          '99999999999999999999',
          'NaN',
          'Infinity',
          '١٢',
        ]) {
          const answer = await app.post(url, [read(name, value)]);
          assertProblem(answer, 400, 'invalid-request', new RegExp(`${name} must be a whole number of 0 or more`));
          assert.deepEqual(answer.json.errors[0].path, '/0/value');
        }
      }
      assert.equal((await app.post(url, [read('GETDATA_LIMIT', ' 2 ')])).json.length, 2, 'surrounding spaces are fine');
    });

    it('refuses GETDATA_ORDER on a field the object does not have, naming the fields', async () => {
      for (const order of ['nickname', 'name, nickname desc', 'addresses.city', 'addresses.home.city', 'addresses.main.planet']) {
        assertProblem(
          await app.post(url, [read('GETDATA_ORDER', order)]),
          400,
          'unknown-field',
          /its fields are id, name, email, active, updated_at/,
        );
      }
      assertProblem(await app.post(url, [read('GETDATA_ORDER', 'name sideways')]), 400, 'invalid-request', /must be asc or desc/);
      assertProblem(await app.post(url, [read('GETDATA_ORDER', 'name,')]), 400, 'invalid-request', /empty sort term/);
    });

    it('refuses GETDATA_WHERE on an unknown field or with bad syntax', async () => {
      assertProblem(await app.post(url, [read('GETDATA_WHERE', 'salary > 5')]), 400, 'unknown-field', /no field 'salary'/);
      assertProblem(await app.post(url, [read('GETDATA_WHERE', 'name = ')]), 400, 'invalid-request', /GETDATA_WHERE, column/);
      assertProblem(await app.post(url, [read('GETDATA_WHERE', `${'('.repeat(500)}id = 1${')'.repeat(500)}`)]), 400, 'invalid-request');
      assertProblem(await app.post(url, [read('GETDATA_WHERE', `name = '${'a'.repeat(70_000)}'`)]), 400, 'invalid-request');
      // 1,001 ORs: SQLite would refuse the statement (expression tree too deep) and answer 500.
      const chain = Array.from({ length: 1001 }, () => 'id = 1').join(' OR ');
      assertProblem(await app.post(url, [read('GETDATA_WHERE', chain)]), 400, 'invalid-request', /joins more than 500 conditions/);
    });

    it('refuses a value where GETDATA_WHERE needs a condition, which would answer every record instead of one', async () => {
      for (const [where, detail] of [
        [123, /^GETDATA_WHERE, column 1: 123 is a value, not a condition: .*compare a field with it \(e\.g\. id = 123\)\.$/],
        ['123', /column 1: 123 is a value, not a condition/],
        ["'C-7'", /column 1: 'C-7' is a value, not a condition/],
        ['NULL', /column 1: NULL is a value, not a condition/],
        ['NOT 5', /column 5: 5 is a value/],
        ['active AND 0', /column 12: 0 is a value/],
        ['id', /column 1: id is an Integer field, not a condition: .*compare it \(id = …\) or test it \(id IS NOT NULL\)\.$/],
        ['name OR active', /column 1: name is a String field, not a condition/],
        ['tolower(name)', /column 1: tolower\(\) gives a value, not a condition/],
      ] as const) {
        const answer = await app.post(url, [read('GETDATA_WHERE', where)]);
        assertProblem(answer, 400, 'invalid-request', detail);
        assert.equal(answer.json.errors[0].path, '/0/value');
      }
      // Conditions, and the flags a bare Boolean field and TRUE are, still read.
      for (const where of ['active', 'NOT active', 'TRUE', '1 = 1', "contains(name, 'a')", 'id = 1 OR active']) {
        const answer = await app.post(url, [read('GETDATA_WHERE', where)]);
        assert.equal(answer.status, 200, `${where}: ${answer.text}`);
      }
    });
  });

  describe('write values', () => {
    it('refuses an unknown field in both write bodies', async () => {
      assertProblem(
        await app.post('/api/RunConnectionSetDataMin/crm/Customer', { name: 'X', salary: 1 }),
        400,
        'unknown-field',
        /no field 'salary'/,
      );
      assertProblem(
        await app.post('/api/RunConnectionSetData/crm/Customer', {
          columns: [
            { name: 'name', value: 'X' },
            { name: 'salary', value: 1 },
          ],
        }),
        400,
        'unknown-field',
        /no field 'salary'/,
      );
    });

    it('refuses values of the wrong type, naming the field', async () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ name: 'X', active: 'perhaps' }, /Customer.active: expected true or false/],
        [{ name: 'X', active: [true] }, /Customer.active: expected true or false/],
        [{ name: 'X', updated_at: 12345 }, /Customer.updated_at: expected an ISO 8601 date-time/],
        [{ name: 'X', updated_at: '2024-13-45T99:00:00Z' }, /Customer.updated_at: expected an ISO 8601 date-time/],
        [{ name: { first: 'X' } }, /Customer.name: expected text/],
        [{ name: ['X'] }, /Customer.name: expected text/],
        [{ name: null }, /Customer.name: a value is required/],
      ];
      for (const [body, detail] of cases)
        assertProblem(await app.post('/api/RunConnectionSetDataMin/crm/Customer', body), 400, 'invalid-value', detail);
      assertProblem(
        await app.post('/api/RunConnectionSetData/crm/Customer', {
          columns: [
            { name: 'name', value: 'X' },
            { name: 'addresses[main].city', value: { x: 1 } },
          ],
        }),
        400,
        'invalid-value',
        /addresses\[main\]\.city: expected text/,
      );
      assert.equal((await app.crm('customers').where({ name: 'X' })).length, 0);
    });
  });

  describe('failures on the server side', () => {
    it('answers an unclassified driver error with a bare 500 and logs it', async () => {
      const before = app.logs.length;
      for (const call of [
        app.post('/api/RunConnectionGetDataMin/erp/Account'),
        app.post('/api/RunConnectionGetData/erp/Account'),
        app.get('/api/GetDataObject/erp/Account/C-2'),
        app.post('/api/RunConnectionGetQueryData/erp', { columns: [{ Name: 'a', ColumnType: 'String' }], Statement: 'SELECT 1 AS a' }),
        app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: 'L-1', AccountName: 'L' }),
      ]) {
        const answer = await call;
        assertProblem(answer, 500, 'internal');
        assert.equal(answer.json.detail, 'The request failed on the server; the log has the details.');
      }
      const logged = app.logs.slice(before).filter((line) => line.level === 50 && line.msg === 'request failed');
      assert.equal(logged.length, 5);
      assert.match(JSON.stringify(logged[0]!.err), /SELECT \* FROM accounts/, 'the log keeps the cause for the operator');
    });

    it('answers an object whose table does not exist with a 500 that says so but names no table', async () => {
      const answer = await app.post('/api/RunConnectionGetDataMin/ghost/Phantom');
      assertProblem(answer, 500, 'definition-mismatch', /the database does not match the definition/);
      assert.doesNotMatch(answer.text, /phantom_table_secret/);
    });

    it('answers an unreachable database with 503 and no connection settings', async () => {
      const logged = app.logs.length;
      const down = await app.post('/api/RunConnectionGetDataMin/down/Thing');
      assertProblem(down, 503, 'unavailable', /system 'down': the database cannot be reached \(connection refused\)/);
      assert.doesNotMatch(down.text, /\/\/syncline|127\.0\.0\.1|nowhere|:9\b/);
      const gone = await app.post('/api/RunConnectionGetDataMin/gone/Thing');
      assertProblem(gone, 503, 'unavailable', /the SQLite database file does not exist/);
      assert.doesNotMatch(gone.text, /nothing-here|syncline-gone/);
      const log = JSON.stringify(app.logs.slice(logged));
      assert.ok(!log.includes('hunter2'), `the log holds no password either: ${log}`);
    });
  });

  describe('routes', () => {
    it('answers unknown routes with 404 and other methods with 405, as problems', async () => {
      assertProblem(await app.get('/nothing-here'), 404, 'unknown-route', /No route GET \/nothing-here/);
      assertProblem(await app.get('/api/nothing-here'), 404, 'unknown-route');
      assertProblem(await app.call('DELETE', '/api/RunConnectionSetData/crm/Customer'), 405, 'method-not-allowed');
      assertProblem(await app.call('PUT', '/api/GetDataObject/crm/Customer/1'), 405, 'method-not-allowed', /answers HEAD, GET/);
      assertProblem(await app.call('POST', '/healthz'), 405, 'method-not-allowed');
    });

    // fetch refuses to send TRACE, and PROPFIND is no method the router implements anywhere.
    it('answers a method no route implements as problems too: 405 on a route, 404 elsewhere', async () => {
      const send = (method: string, path: string) =>
        new Promise<{ status: number; type: string; allow: string; json: { type?: string; detail?: string } }>((resolve, reject) => {
          const outgoing = request(`${app.base}${path}`, { method }, (response) => {
            let text = '';
            response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                type: String(response.headers['content-type']),
                allow: String(response.headers.allow ?? ''),
                json: JSON.parse(text) as { type?: string; detail?: string },
              }),
            );
          });
          outgoing.on('error', reject).end();
        });
      for (const method of ['TRACE', 'PROPFIND']) {
        const onRoute = await send(method, '/api/AddAction');
        assert.deepEqual([onRoute.status, onRoute.type, onRoute.allow], [405, 'application/problem+json', 'POST'], method);
        assert.match(onRoute.json.detail ?? '', new RegExp(`does not answer ${method}; it answers POST`));
        const nowhere = await send(method, '/api/nothing-here');
        assert.deepEqual(
          [nowhere.status, nowhere.type, nowhere.json.type],
          [404, 'application/problem+json', 'urn:syncline:problem:unknown-route'],
          method,
        );
      }
    });

    it('answers an unknown system or object with 404 on every route', async () => {
      for (const path of [
        '/api/RunConnectionGetData/shop/Customer',
        '/api/RunConnectionGetDataMin/shop/Customer',
        '/api/RunConnectionGetQueryData/shop',
      ]) {
        const answer = await app.post(
          path,
          path.endsWith('shop') ? { columns: [{ Name: 'a', ColumnType: 'String' }], Statement: 'SELECT 1' } : [],
        );
        assertProblem(answer, 404, 'unknown-system', /There is no system 'shop'. Systems: /);
        assert.deepEqual(/Systems: (.*)\.$/.exec(answer.json.detail)![1]!.split(', ').sort(), ['crm', 'down', 'erp', 'ghost', 'gone']);
      }
      assertProblem(await app.get('/api/GetDataObject/shop/Customer/1'), 404, 'unknown-system');
      assertProblem(
        await app.post('/api/RunConnectionSetData/crm/Order', { columns: [{ name: 'a', value: 1 }] }),
        404,
        'unknown-object',
        /Objects: Customer/,
      );
      assertProblem(await app.post('/api/RunConnectionSetDataMin/crm/Order', { a: 1 }), 404, 'unknown-object');
    });

    it('answers a path whose percent-encoding does not decode with 400 naming the escape, not 404 for a name nobody has', async () => {
      for (const [path, broken] of [
        ['/api/GetDataObject/crm/Customer/%E0%A4', '%E0%A4'],
        ['/api/RunConnectionGetDataMin/crm/Cust%zzomer', '%zz'],
        ['/api/GetAction/100%', '%'],
        ['/api/webhooks/wh_%FF', '%FF'],
      ] as const) {
        const answer = path.includes('GetData') && !path.includes('Object') ? await app.post(path, []) : await app.get(path);
        assertProblem(answer, 400, 'invalid-request', /not percent-encoded UTF-8/);
        assert.ok(answer.json.detail.includes(`'${broken}'`), `${path}: ${answer.json.detail}`);
      }
      // Escapes that decode still reach the routes: %25 is a literal '%', %C3%A9 an é.
      assertProblem(await app.get('/api/GetDataObject/crm/Customer/100%25'), 400, 'invalid-value', /not a valid Integer/);
      assertProblem(await app.post('/api/RunConnectionGetDataMin/crm/Caf%C3%A9', []), 404, 'unknown-object', /'Café'/);
    });
  });
});
