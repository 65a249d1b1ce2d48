/**
 * The odata connector's spec as definitions meet it: a System with its connection and objects
 * loads; the schema refuses a connection without baseUrl and unknown settings; each typed group
 * names exactly one collection (navigation or property), reported at the group's place.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, test } from 'node:test';
import { loadConnectorSpecs } from '../../../../connectors/index.js';
import { loadDefinitions } from '../../../../definitions/load-definitions.js';
import type { Problem } from '../../../../definitions/problem.js';

const connectors = await loadConnectorSpecs();
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function load(yaml: string): Promise<{ ok: boolean; problems: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'syncline-odata-spec-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'systems.yaml'), yaml);
  const result = await loadDefinitions([dir], { connectors, env: { SALES_PASSWORD: 'secret-value' } });
  return {
    ok: result.ok,
    problems: result.problems.map((problem: Problem) => `${basename(problem.file)}:${problem.line}:${problem.column} ${problem.message}`),
  };
}

const system = (connection: string, groups: string) => `kind: System
id: sales
connector: odata
connection:
${connection}
objects:
  Customer:
    entitySet: Customers
    key: [id]
    fields:
      id: { type: Integer }
    groups:
${groups}
`;

const connection = `  baseUrl: https://sales.example.com/odata/v4/sales/
  auth:
    type: basic
    username: syncline
    password: \${env:SALES_PASSWORD}
  batch: multipart
  maxPageSize: 500`;

test('a System of the odata connector loads, with the defaults filled in', async () => {
  const result = await load(
    system(connection, '      addresses: { navigation: addresses, types: [main], fields: { city: { type: String } } }'),
  );
  assert.deepEqual(result.problems, []);
  assert.ok(result.ok);
});

test('the connection needs baseUrl and takes no unknown setting', async () => {
  const result = await load(
    system(
      '  batch: sometimes\n  pageSize: 5',
      '      addresses: { navigation: addresses, types: [main], fields: { city: { type: String } } }',
    ),
  );
  assert.equal(result.ok, false);
  const text = result.problems.join('\n');
  assert.match(text, /baseUrl/);
  assert.match(text, /batch/);
  assert.match(text, /pageSize/);
});

test('a group names exactly one collection, reported at the group', async () => {
  const result = await load(
    system(
      connection,
      '      addresses: { typeField: type, types: [main], fields: { city: { type: String } } }\n      phones: { navigation: phones, property: phones, types: [work], fields: { number: { type: String } } }',
    ),
  );
  assert.equal(result.ok, false);
  assert.deepEqual(result.problems, [
    'systems.yaml:19:18 group addresses of Customer needs navigation (a navigation property holding its entries) or property (a collection of complex type)',
    'systems.yaml:20:15 group phones of Customer sets both navigation and property; give the one that holds its entries',
  ]);
});
