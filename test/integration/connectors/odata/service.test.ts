/**
 * The odata connector and the service around the records: signing in (HTTP Basic against CAP's
 * mocked users; OAuth2 client credentials with a token endpoint and a gate in front of CAP), what
 * check() says, definitions the service does not match, and server-driven paging followed link by
 * link.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { before, test } from 'node:test';
import type { Connection, RecordData } from '../../../../connectors/connection.js';
import * as odata from '../../../../connectors/odata/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import { describeWithODataServer } from '../../../support/odata-server.js';
import { parseExpression } from '../../../../definitions/expression/index.js';
import { readAll, rejectsWith } from '../conformance.js';
import { CUSTOMERS } from '../crm-fixture.js';
import { countOf, createCrm, crmSystem } from './odata-crm.js';
import { startRecordingProxy } from './recording-proxy.js';

const PASSWORD = 'alice-password-never-shown';
const basic = `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}`;
const open = (system: SystemDefinition): Connection => odata.createConnection(system, { baseDirectory: process.cwd() });

await describeWithODataServer('odata connector and its service', { users: { alice: PASSWORD } }, (server) => {
  before(async () => {
    await createCrm(server(), { authorization: basic });
  });

  test('HTTP Basic: the right credentials read, wrong ones are refused in our words', async () => {
    const signedIn = open(crmSystem(server(), {}, { auth: { type: 'basic', username: 'alice', password: PASSWORD } }));
    const wrong = open(crmSystem(server(), {}, { auth: { type: 'basic', username: 'alice', password: 'not-the-password' } }));
    const anonymous = open(crmSystem(server()));
    try {
      await signedIn.check();
      assert.equal(await signedIn.count('Customer'), CUSTOMERS.length);
      for (const connection of [wrong, anonymous]) {
        const error = await rejectsWith(() => connection.check(), 'unavailable', /refused our credentials \(HTTP 401/);
        assert.doesNotMatch(error.message, /password|alice/);
        await rejectsWith(() => readAll(connection, 'Customer'), 'unavailable', /refused our credentials/);
      }
    } finally {
      await Promise.all([signedIn.close(), wrong.close(), anonymous.close()]);
    }
  });

  test('OAuth2 client credentials: one token for many requests, renewed once when the service stops taking it', async () => {
    const gate = await startOAuthGate(server().url);
    const connection = open(
      crmSystem(
        server(),
        {},
        {
          baseUrl: gate.url,
          auth: { type: 'oauth2', tokenUrl: `${gate.origin}/token`, clientId: 'syncline', clientSecret: 'client-secret-never-shown' },
        },
      ),
    );
    try {
      assert.equal((await readAll(connection, 'Customer')).records.length, CUSTOMERS.length);
      assert.equal(await connection.count('Customer'), CUSTOMERS.length);
      assert.equal(gate.tokensIssued(), 1);
      gate.revokeTokens();
      assert.equal(await connection.count('Customer'), CUSTOMERS.length);
      assert.equal(gate.tokensIssued(), 2);
      const wrongSecret = open(
        crmSystem(
          server(),
          {},
          { baseUrl: gate.url, auth: { type: 'oauth2', tokenUrl: `${gate.origin}/token`, clientId: 'syncline', clientSecret: 'wrong' } },
        ),
      );
      const error = await rejectsWith(() => wrongSecret.count('Customer'), 'unavailable', /could not obtain an OAuth2 access token/);
      assert.doesNotMatch(error.message, /wrong|secret/i);
      await wrongSecret.close();
    } finally {
      await connection.close();
      await gate.close();
    }
  });

  test('a definition the service does not match is a definition-mismatch naming what it lacks; the rest works on', async () => {
    const system = crmSystem(server(), {}, { auth: { type: 'basic', username: 'alice', password: PASSWORD } });
    system.objects.Order = { entitySet: 'Orders', key: ['id'], fields: { id: { type: 'Integer' } } };
    system.objects.Account!.fields.Phone = { type: 'String' };
    system.objects.Customer!.fields.score = { type: 'Boolean' };
    const connection = open(system);
    try {
      await rejectsWith(
        () => readAll(connection, 'Order'),
        'definition-mismatch',
        /object Order: the service has no entity set 'Orders' \(its \$metadata lists Accounts, Addresses, Contracts, Customers, Devices, Vendors\)/,
      );
      await rejectsWith(
        () => connection.count('Account'),
        'definition-mismatch',
        /declares field 'Phone', but the service's type CrmService\.Accounts has no property of that name/,
      );
      await rejectsWith(
        () => connection.write('Customer', { values: { id: 1, notes: 'x' } }),
        'definition-mismatch',
        /field 'score' as Boolean, which cannot hold the service's Edm\.Int32/,
      );
      assert.equal((await readAll(connection, 'ReadOnlyCustomer')).records.length, CUSTOMERS.length);
    } finally {
      await connection.close();
    }
  });

  test('a group in a collection of complex type: read, created inline, updated as the whole collection merged', async () => {
    const system = crmSystem(server(), {}, { auth: { type: 'basic', username: 'alice', password: PASSWORD } });
    system.objects.Vendor = {
      entitySet: 'Vendors',
      key: ['code'],
      fields: { code: { type: 'String' }, name: { type: 'String' } },
      groups: { phones: { property: 'phones', typeField: 'type', types: ['work', 'home', 'fax'], fields: { number: { type: 'String' } } } },
    };
    const connection = open(system);
    try {
      assert.deepEqual(
        await connection.write('Vendor', {
          values: { code: 'v1', name: 'One' },
          groups: { phones: { work: { number: '1' }, home: { number: '2' } } },
        }),
        {
          action: 'created',
          key: { code: 'v1' },
        },
      );
      assert.deepEqual(
        await connection.write('Vendor', { values: { code: 'v1' }, groups: { phones: { work: { number: '9' }, fax: { number: '3' } } } }),
        {
          action: 'updated',
          key: { code: 'v1' },
        },
      );
      const [vendor] = (await readAll(connection, 'Vendor', { id: { code: 'v1' } })).records;
      assert.deepEqual(vendor, { code: 'v1', name: 'One', phones: { work: { number: '9' }, home: { number: '2' }, fax: { number: '3' } } });
      // SAP CAP keeps arrayed elements as JSON and cannot filter inside them (OData services that can take the lambda).
      await rejectsWith(
        () => connection.count('Vendor', { filter: parseExpression("phones.work.number = '9'") }),
        'unavailable',
        /HTTP 400/,
      );
    } finally {
      await connection.close();
    }
  });

  test('a base URL that is not an OData service is unavailable, saying why', async () => {
    const connection = open(
      crmSystem(server(), {}, { baseUrl: `${server().origin}/nowhere/`, auth: { type: 'basic', username: 'alice', password: PASSWORD } }),
    );
    try {
      await rejectsWith(() => connection.count('Customer'), 'unavailable', /system 'crm' answered GET \/nowhere\/\$metadata with HTTP 404/);
    } finally {
      await connection.close();
    }
  });

  test('a filter part translated loosely keeps the records checked again, even when another part says the same', async () => {
    const connection = open(crmSystem(server(), {}, { auth: { type: 'basic', username: 'alice', password: PASSWORD } }));
    try {
      const wanted = CUSTOMERS.find((row) => row.email !== null && row.email !== '')!;
      const filter = parseExpression('email IS NOT NULL AND tolower(email) = #email#');
      const placeholders = () => wanted.email!.toLowerCase();
      const { records } = await readAll(connection, 'Customer', { filter, placeholders });
      assert.deepEqual(
        records.map((record) => record.id),
        [wanted.id],
      );
      assert.equal(await connection.count('Customer', { filter, placeholders }), 1);
    } finally {
      await connection.close();
    }
  });

  test("the service's pages are followed by @odata.nextLink: CAP sends at most 25 entities an answer", async () => {
    const proxy = await startRecordingProxy(server().url);
    const connection = open(
      crmSystem(server(), {}, { baseUrl: proxy.url, auth: { type: 'basic', username: 'alice', password: PASSWORD } }),
    );
    try {
      const { records, pages } = await readAll(connection, 'Customer', { pageSize: 30 });
      assert.deepEqual(pages, [30, CUSTOMERS.length - 30]);
      assert.deepEqual(
        records.map((record: RecordData) => record.id),
        CUSTOMERS.map((row) => row.id),
      );
      const reads = proxy.requests.filter((request) => request.url.includes('/Customers?'));
      assert.ok(
        reads.some((request) => request.url.includes('skiptoken')),
        reads.map((request) => request.url).join('\n'),
      );
      assert.equal(await countOf(server(), 'Customers', { authorization: basic }), CUSTOMERS.length);
    } finally {
      await connection.close();
      await proxy.close();
    }
  });
});

interface OAuthGate {
  url: string;
  origin: string;
  tokensIssued(): number;
  revokeTokens(): void;
  close(): Promise<void>;
}

/**
 * An OAuth2 token endpoint (client credentials, HTTP Basic client authentication) and a gate in
 * front of the CAP service that lets through only requests with a token it issued, signing them in
 * to CAP as alice.
 */
async function startOAuthGate(serviceUrl: string): Promise<OAuthGate> {
  const target = new URL(serviceUrl);
  const valid = new Set<string>();
  let issued = 0;
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    if (request.url === '/token') {
      const client = `Basic ${Buffer.from('syncline:client-secret-never-shown').toString('base64')}`;
      if (request.headers.authorization !== client || !body.includes('grant_type=client_credentials')) {
        response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
        return;
      }
      issued += 1;
      const token = `token-${issued}-${Math.random().toString(36).slice(2)}`;
      valid.add(token);
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600 }));
      return;
    }
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (token === undefined || !valid.has(token)) {
      response.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      return;
    }
    const headers: Record<string, string> = { authorization: basic };
    for (const name of ['accept', 'content-type', 'prefer', 'if-match']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const answer = await fetch(new URL(request.url ?? '/', target.origin), {
      method: request.method ?? 'GET',
      headers,
      ...(body === '' ? {} : { body }),
    });
    response
      .writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' })
      .end(Buffer.from(await answer.arrayBuffer()));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}${target.pathname}`,
    origin,
    tokensIssued: () => issued,
    revokeTokens: () => valid.clear(),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
