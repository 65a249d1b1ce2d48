/**
 * What the http connector checks when definitions load, each problem at the setting it is about
 * (file:line:col): JSONata that does not compile, path templates that are malformed or name what
 * they cannot, filters and sorts that name no usable field, named queries, and the warnings.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, test } from 'node:test';
import { loadConnectorSpecs } from '../../../../connectors/index.js';
import { loadDefinitions } from '../../../../definitions/load-definitions.js';
import { formatProblem } from '../../../../definitions/problem.js';

const connectors = await loadConnectorSpecs();
const dir = mkdtempSync(join(tmpdir(), 'syncline-http-check-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function problemsOf(yaml: string): Promise<string[]> {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  try {
    const result = await loadDefinitions([file], { connectors, env: {} });
    return result.problems.map((problem) => formatProblem({ ...problem, file: basename(problem.file) }).replace(/^\S+\.yaml/, 'f.yaml'));
  } finally {
    rmSync(file);
  }
}

const valid = `kind: System
id: api
connector: http
connection: { baseUrl: "http://127.0.0.1:3100/", writeConcurrency: 2, check: /health, discover: [/customers] }
objects:
  Customer:
    list: { path: /customers, query: { expand: addresses } }
    get: { path: "/customers/{id}", record: data }
    create: { path: /customers, key: "data" }
    update: { method: PUT, path: "/customers/{id}" }
    records: "data[active]"
    total: { header: X-Total-Count }
    paging: { style: cursor, cursor: meta.next, cursorParam: after }
    filters:
      - { field: email, op: "=", param: email }
      - { field: name, op: like, param: name_like, value: regex }
      - { field: id, op: in, param: ids, separator: "," }
      - { field: addresses.main.city, op: "=", param: city }
    sort: { param: sort, descendingPrefix: "-", fields: [id, name] }
    key: [id]
    fields:
      id: { type: Integer, readOnly: true }
      name: { type: String }
      email: { type: String }
      meta: { type: Json }
    groups:
      addresses: { property: addressesByType, types: [main], fields: { city: { type: String } } }
`;

test('a System using every option loads without a problem', async () => {
  assert.deepEqual(await problemsOf(valid), []);
});

test('each mistake is reported at its setting', async () => {
  const broken = `kind: System
id: api
connector: http
connection: { baseUrl: "http://127.0.0.1:3100/" }
objects:
  Customer:
    list: { path: "/customers/{id}" }
    get: { path: "/customers/{email}" }
    update: { path: "/customers/{nope" }
    records: "data[("
    paging: { style: link, next: "$$$(" }
    filters:
      - { field: nope, op: "=", param: nope }
      - { field: meta, op: "=", param: meta }
      - { field: id, op: contains, param: q }
      - { field: email, op: "=", param: e, value: regex, separator: "," }
    sort: { param: sort, fields: [name, planet] }
    key: [id]
    fields:
      id: { type: Integer }
      name: { type: String }
      email: { type: String }
      meta: { type: Json }
queries:
  all: { statement: "everything", columns: [{ name: id, type: Integer }] }
`;
  assert.deepEqual(await problemsOf(broken), [
    'f.yaml:7:19: System/api: objects.Customer.list.path: {id} is not filled by anything: the list is read without a record; this path takes no placeholders',
    'f.yaml:8:18: System/api: objects.Customer.get.path: names no {id}; a get finds one record by its whole key',
    'f.yaml:8:18: System/api: objects.Customer.get.path: {email} is not a key field; it may name id',
    "f.yaml:9:21: System/api: objects.Customer.update.path: '{' at 12 is not closed",
    'f.yaml:10:14: System/api: objects.Customer.records: JSONata: Expected ")" before end of expression',
    'f.yaml:11:34: System/api: objects.Customer.paging.next: JSONata: Expected ")" before end of expression',
    "f.yaml:13:18: System/api: objects.Customer.filters.0.field: 'nope' is not a field of the object (or group.type.field of a group entry); its fields are id, name, email, meta",
    "f.yaml:14:18: System/api: objects.Customer.filters.1.field: 'meta' is a Json field, which no parameter can test",
    "f.yaml:15:26: System/api: objects.Customer.filters.2.op: contains tests text; 'id' is of type Integer",
    'f.yaml:16:51: System/api: objects.Customer.filters.3.value: regex goes with contains, startswith, endswith or like, not =',
    'f.yaml:16:69: System/api: objects.Customer.filters.3.separator: a separator joins the values of in, not of =',
    'f.yaml:17:34: warning: System/api: objects.Customer.sort.fields: the key (id) is not among them, so no order can be sent (the key breaks ties); add it, or every order is made in memory',
    "f.yaml:17:41: System/api: objects.Customer.sort.fields: 'planet' is not a field of the object; its fields are id, name, email, meta",
    'f.yaml:25:8: System/api: queries.all: the http connector runs no named queries (a REST API takes no free statements); read an object instead',
  ]);
});

test('a writable object without create or update is a warning; schema mistakes name the setting', async () => {
  const readOnlyNeedsNothing = valid
    .replace('    create: { path: /customers, key: "data" }\n', '')
    .replace('    update: { method: PUT, path: "/customers/{id}" }\n', '');
  assert.deepEqual(await problemsOf(readOnlyNeedsNothing), [
    'f.yaml:7:5: warning: System/api: objects.Customer: neither create nor update is declared, so every write is refused; add them (e.g. create: { path: … }), or readOnly: true',
  ]);
  assert.deepEqual(await problemsOf(readOnlyNeedsNothing.replace('connector: http', 'connector: http\nreadOnly: true')), []);
  const problems = await problemsOf(
    valid
      .replace('style: cursor, cursor: meta.next, cursorParam: after', 'style: cursor')
      .replace('/customers, key', 'https://elsewhere.example/customers, key'),
  );
  assert.equal(problems.length, 2, problems.join('\n'));
  assert.match(problems.join('\n'), /paging.*cursor/);
  assert.match(problems.join('\n'), /create\.path/);
});

test('an expression calling a function JSONata does not have is reported at its setting', async () => {
  const misspelt = valid.replace('records: "data[active]"', 'records: "$filterr(data, function($c) { $c.active })"');
  assert.deepEqual(await problemsOf(misspelt), [
    'f.yaml:11:14: System/api: objects.Customer.records: $filterr is not a JSONata function, nor one the expression defines: JSONata fails every evaluation that reaches the call ("Attempted to invoke a non-function"); did you mean $filter?',
  ]);
});
