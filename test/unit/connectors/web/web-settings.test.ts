/**
 * The shared `connection:` schema of the web connectors, loaded the way definitions are (Ajv in
 * strict mode, defaults filled in) through a connector spec that spreads it, and the settings
 * `webSettings` makes of the result.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { webConnectionProperties, webConnectionRequired, webSettings } from '../../../../connectors/web/web-settings.js';
import type { ConnectorSpec, ConnectorSpecs } from '../../../../definitions/connector-spec.js';
import { loadDefinitions } from '../../../../definitions/load-definitions.js';
import { buildEditorSchema } from '../../../../definitions/schema/editor-schema.js';
import { renderPropertySection } from '../../../../definitions/schema/reference-tables.js';
import type { Problem } from '../../../../definitions/problem.js';
import type { SystemDefinition } from '../../../../definitions/types.js';

const webSpec: ConnectorSpec = {
  name: 'web-test',
  description: 'A connector that only spreads the shared web settings.',
  connectionSchema: {
    type: 'object',
    additionalProperties: false,
    required: [...webConnectionRequired],
    properties: { ...webConnectionProperties },
  },
  objectProperties: {},
  requiredObjectProperties: [],
  groupProperties: {},
  requiredGroupProperties: [],
  capabilities: {
    filterPushDown: false,
    limit: false,
    skip: false,
    order: false,
    count: false,
    typedGroups: false,
    transactions: false,
    readOnlyQuery: false,
  },
};
const connectors: ConnectorSpecs = new Map([['web-test', webSpec]]);

const scratch = mkdtempSync(join(tmpdir(), 'syncline-web-settings-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let count = 0;

/** Loads one System with this `connection:` (YAML flow mapping lines). */
async function loadSystem(connection: string, env: Record<string, string> = {}) {
  const dir = join(scratch, `defs-${++count}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'systems.yaml'), `kind: System\nid: api\nconnector: web-test\nconnection:\n${connection}\nobjects: {}\n`);
  return loadDefinitions([dir], { connectors, env });
}

const said = (problems: Problem[]) => problems.map((problem) => `${problem.line}:${problem.column} ${problem.message}`);

async function loaded(connection: string, env: Record<string, string> = {}): Promise<SystemDefinition> {
  const result = await loadSystem(connection, env);
  assert.ok(result.ok, result.ok ? '' : said(result.problems).join('\n'));
  return result.snapshot.systems.get('api')!.definition;
}

test('defaults are filled in by the schema, and the settings are numbers', async () => {
  const system = await loaded('  baseUrl: https://erp.example.com/odata/v4/crm\n  auth: { type: apiKey, value: "${env:KEY}" }', {
    KEY: 'k-123456',
  });
  assert.deepEqual(system.connection, {
    baseUrl: 'https://erp.example.com/odata/v4/crm',
    auth: { type: 'apiKey', value: 'k-123456', header: 'X-API-Key' },
    retries: { max: 3, maxWait: '30s' },
    maxResponseBytes: '32mib',
  });
  const settings = webSettings(system.connection);
  assert.equal(settings.baseUrl, 'https://erp.example.com/odata/v4/crm/', 'the path is a folder');
  assert.deepEqual(settings.retries, { max: 3, maxWait: '30s', maxWaitMs: 30_000 });
  assert.equal(settings.maxResponseBytes, 32 * 1024 * 1024);
  assert.equal(settings.maxResponseBytesText, '32 MiB');
  assert.equal(settings.rateLimit, undefined);
  assert.deepEqual(settings.headers, {});
  assert.ok(Object.isFrozen(settings));
});

test('every setting written out, oauth2 with its clientAuthentication default', async () => {
  const system = await loaded(
    [
      '  baseUrl: http://127.0.0.1:8080/',
      '  auth: { type: oauth2, tokenUrl: "https://login.example.com/token", clientId: app, clientSecret: s3cret-value, scope: "read write" }',
      '  headers: { X-Tenant: acme }',
      '  retries: { max: 5, maxWait: 1m }',
      '  rateLimit: { requests: 10, per: 1s }',
      '  maxResponseBytes: 512kb',
    ].join('\n'),
  );
  const settings = webSettings(system.connection);
  assert.deepEqual(settings.auth, {
    type: 'oauth2',
    tokenUrl: 'https://login.example.com/token',
    clientId: 'app',
    clientSecret: 's3cret-value',
    scope: 'read write',
    clientAuthentication: 'basic',
  });
  assert.deepEqual(settings.headers, { 'X-Tenant': 'acme' });
  assert.deepEqual(settings.retries, { max: 5, maxWait: '1m', maxWaitMs: 60_000 });
  assert.deepEqual(settings.rateLimit, { requests: 10, perMs: 1000 });
  assert.equal(settings.maxResponseBytes, 512_000);
});

test('a definition built in code gets the same defaults', () => {
  const settings = webSettings({
    baseUrl: 'http://h/api',
    auth: { type: 'oauth2', tokenUrl: 'http://h/t', clientId: 'a', clientSecret: 'b' },
  });
  assert.deepEqual(settings.retries, { max: 3, maxWait: '30s', maxWaitMs: 30_000 });
  assert.equal(settings.maxResponseBytes, 32 * 1024 * 1024);
  assert.equal(settings.auth?.type === 'oauth2' && settings.auth.clientAuthentication, 'basic');
});

test('mistakes are problems at the setting, naming the property at fault', async () => {
  const result = await loadSystem(
    [
      '  baseUrl: ftp://files.example.com/',
      '  auth: { type: bearer, username: me }',
      '  headers: { authorization: "Bearer abc", X-Fine: ok, content-length: "5" }',
      '  retries: { max: 3, backoff: 1s }',
      '  rateLimit: { requests: 10 }',
    ].join('\n'),
  );
  assert.equal(result.ok, false);
  const refused =
    'has the wrong form; expected no Authorization, Host, Content-Length or connection header (Connection, Keep-Alive, TE, Transfer-Encoding, Upgrade) here: auth sets Authorization and each request the others';
  assert.deepEqual(said(result.problems), [
    "5:12 connection.baseUrl: 'ftp://files.example.com/' has the wrong form; expected an http or https URL without user, password, query or fragment, e.g. https://erp.example.com/odata/v4/crm/: where the API lives. Request paths are resolved below it, keeping its path, and credentials go only to its scheme, host and port",
    "6:3 connection.auth is missing required property 'token'",
    "6:25 connection.auth: unknown property 'username'; allowed: type, token",
    `7:29 connection.headers.authorization: 'Bearer abc' ${refused}`,
    `7:71 connection.headers.content-length: '5' ${refused}`,
    "8:22 connection.retries: unknown property 'backoff'; allowed: max, maxWait",
    "9:3 connection.rateLimit is missing required property 'per'",
  ]);
});

test('an unknown auth type lists the types; a secret from the environment is never quoted', async () => {
  const result = await loadSystem('  baseUrl: https://h/\n  auth: { type: ntlm }\n  headers: { Host: "${env:SECRET_HOST}" }', {
    SECRET_HOST: 'hunter2-host',
  });
  assert.equal(result.ok, false);
  const messages = said(result.problems).join('\n');
  assert.match(messages, /connection\.auth\.type: 'ntlm' is not allowed; use one of: basic, bearer, apiKey, oauth2/);
  assert.match(messages, /connection\.headers\.Host: the value of "\$\{env:SECRET_HOST\}" has the wrong form/);
  assert.doesNotMatch(messages, /hunter2/);
});

test('a baseUrl with credentials or a query is refused', async () => {
  for (const baseUrl of ['https://user:pw@h/api/', 'https://h/api/?sap-client=100', 'https://h/api#x']) {
    const result = await loadSystem(`  baseUrl: "${baseUrl}"`);
    assert.equal(result.ok, false, baseUrl);
  }
});

test('the reference tables and the editor schema show every shared property, auth ones included', () => {
  const section = renderPropertySection('System', connectors);
  for (const path of [
    'connection.baseUrl',
    'connection.auth.type',
    'connection.auth.clientSecret',
    'connection.retries.maxWait',
    'connection.maxResponseBytes',
  ]) {
    assert.ok(section.includes(`\`${path}\``), `${path} is in the reference`);
  }
  const editor = JSON.stringify(buildEditorSchema(connectors));
  assert.ok(editor.includes('oauth2: the client secret'));
  assert.ok(!editor.includes('common.json#'), 'references are local to the editor schema');
});
