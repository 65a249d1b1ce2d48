/**
 * GET /api/openapi.json against the OpenAPI 3.1 schema (@seriousme/openapi-schema-validator) and
 * against reality: every answer the routes give — success and error — must be described by the
 * document (status, media type and JSON Schema, checked with Ajv 2020), and every request body the
 * routes accept in these tests must fit the documented request schema. A hot reload publishes a
 * new document: its enums grow with the definitions.
 */
import assert from 'node:assert/strict';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parseAllDocuments } from 'yaml';
import { record } from '../webhooks/log-fixture.js';
import { addActionBody, executeProcessBody } from '../../../../runtime/http/queue-body.js';
import { quickstartApp, tokens, type Answer, type HttpApp } from '../../../support/http-app.js';

type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

type Json = Record<string, any>;

/** The JSON pointer of `segments`, escaped for use in a URI fragment. */
const pointer = (segments: readonly string[]) =>
  segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

/** Validates answers and request bodies against one document. */
class DocumentChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema(document, 'openapi.json');
  }

  private validator(segments: readonly string[]): ValidateFunction {
    const ref = `openapi.json#/${pointer(segments)}`;
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, validate);
    }
    return validate;
  }

  private resolve(segments: string[]): { node: Json; segments: string[] } {
    let node: any = this.document;
    for (const segment of segments) node = node?.[segment];
    if (node && typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
      const target = node.$ref
        .slice(2)
        .split('/')
        .map((s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
      return this.resolve(target);
    }
    return { node, segments };
  }

  /** Fails unless the answer's status, media type and body are what the document says. */
  checkAnswer(template: string, method: string, answer: Answer, what: string): void {
    const found = this.resolve(['paths', template, method]);
    if (!found.node && answer.status === 405) {
      // A method the path does not answer cannot be documented; its answer is still a Problem.
      const validate = this.validator(['components', 'schemas', 'Problem']);
      assert.equal(answer.type, 'application/problem+json', what);
      assert.ok(validate(answer.json), `${what}: ${JSON.stringify(validate.errors)}`);
      return;
    }
    assert.ok(found.node, `${what}: ${method.toUpperCase()} ${template} is not documented`);
    const responses = found.node.responses as Json;
    const status = String(answer.status);
    const key = Object.hasOwn(responses, status) ? status : Object.hasOwn(responses, 'default') ? 'default' : undefined;
    assert.ok(
      key,
      `${what}: status ${status} of ${method.toUpperCase()} ${template} is not documented (documented: ${Object.keys(responses).join(', ')})`,
    );
    const response = this.resolve([...found.segments, 'responses', key]);
    const content = response.node.content as Json | undefined;
    if (answer.text === '') return;
    assert.ok(
      content?.[answer.type],
      `${what}: ${status} answers ${answer.type}, documented: ${Object.keys(content ?? {}).join(', ') || 'no body'}`,
    );
    if (answer.json === undefined) return;
    const validate = this.validator([...response.segments, 'content', answer.type, 'schema']);
    assert.ok(
      validate(answer.json),
      `${what}: the ${status} body does not fit the document: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${answer.text.slice(0, 500)}`,
    );
  }

  /** Fails unless `body` fits the documented request body of the operation. */
  checkRequest(template: string, method: string, body: unknown, what: string): void {
    const found = this.resolve(['paths', template, method]);
    const requestBody = this.resolve([...found.segments, 'requestBody']);
    assert.ok(requestBody.node?.content?.['application/json'], `${what}: no JSON request body documented`);
    const validate = this.validator([...requestBody.segments, 'content', 'application/json', 'schema']);
    assert.ok(validate(body), `${what}: the request body does not fit the document: ${JSON.stringify(validate.errors?.slice(0, 5))}`);
  }

  /** The record schema of one object, as a validator. */
  record(system: string, object: string): ValidateFunction {
    return this.validator(['components', 'schemas', `Record.${system}.${object}`]);
  }
}

const paths = {
  getData: '/api/RunConnectionGetData/{system_key}/{object_type}',
  getDataMin: '/api/RunConnectionGetDataMin/{system_key}/{object_type}',
  getDataObject: '/api/GetDataObject/{system_key}/{object_type}/{object_key}',
  query: '/api/RunConnectionGetQueryData/{system_key}',
  setData: '/api/RunConnectionSetData/{system_key}/{object_type}',
  setDataMin: '/api/RunConnectionSetDataMin/{system_key}/{object_type}',
};
const queuePaths = {
  adHoc: '/api/StartProcessAdHoc/{syncId}/{sourceId}',
  addAction: '/api/AddAction',
  direct: '/api/StartProcessDirect/{syncId}/{sourceId}',
  execute: '/api/ExecuteProcess/{syncId}',
  getAction: '/api/GetAction/{queueId}',
  list: '/api/queue',
  cancel: '/api/queue/{queueId}/cancel',
  events: '/api/queue/{queueId}/events',
  retry: '/api/queue/{queueId}/retry',
};
const webhookId = 'wh_crmCustomerChanged01';
/** A paged readQueryWithSystem without a secret, its paging properties renamed. */
const pagedId = 'wh_pagedCustomers0001';
const pagedHook = `kind: Webhook
id: ${pagedId}
action: readQueryWithSystem
system: crm
query: activeCustomersByCity
queryFilter: "city IS NOT NULL"
paging: { pageSizeParam: size, offsetParam: start, filterParam: where, maxPageSize: 20 }
`;
const pagedPath = `/api/webhooks/${pagedId}`;
/** The same with an execution condition, which may stop it without an answer (204). */
const conditionalPagedId = 'wh_pagedIfActive00001';
const conditionalPagedHook = `kind: Webhook
id: ${conditionalPagedId}
action: readQueryWithSystem
system: crm
query: activeCustomersByCity
condition: "#start# < 100"
paging: { pageSizeParam: size, offsetParam: start }
`;
const consolePaths = {
  log: '/api/console/webhooks/{webhookId}/log',
  entry: '/api/console/webhooks/{webhookId}/log/{entryId}',
  pin: '/api/console/webhooks/{webhookId}/log/{entryId}/pin',
  replay: '/api/console/webhooks/{webhookId}/log/{entryId}/replay',
  test: '/api/console/webhooks/{webhookId}/test',
};
const consoleInfoPaths = {
  overview: '/api/console/overview',
  schedules: '/api/schedules',
  definitions: '/api/definitions',
  webhooks: '/api/webhooks',
  systems: '/api/systems',
};
const systemPath = '/api/systems/{systemId}';
const syncId = 'crm-customers-to-erp';
const unknownItem = '00000000-0000-4000-8000-000000000000';

interface Scenario {
  what: string;
  template: string;
  method: 'get' | 'post' | 'delete';
  path: string;
  body?: unknown;
  raw?: string;
  token?: string | null;
  headers?: Record<string, string>;
  status: number;
  /** The request is one the server accepts: its body must fit the documented request schema. */
  valid?: boolean;
}

const query = {
  columns: [
    { Name: 'id', ColumnType: 'Integer' },
    { Name: 'name', ColumnType: 'String' },
  ],
  Statement: 'SELECT id, name FROM customers ORDER BY id',
  CountStatement: 'SELECT COUNT(*) FROM customers',
};
const json = { 'content-type': 'application/json' };
const tooLarge = `[${' '.repeat(1024 * 1024)}]`;

const scenarios: Scenario[] = [
  {
    what: 'full read',
    template: paths.getData,
    method: 'post',
    path: '/api/RunConnectionGetData/crm/Customer',
    body: [
      { name: 'GETDATA_LIMIT', value: '3' },
      { name: 'GETDATA_ORDER', value: 'name desc' },
    ],
    status: 200,
    valid: true,
  },
  {
    what: 'full read of an object without groups',
    template: paths.getData,
    method: 'post',
    path: '/api/RunConnectionGetData/erp/Account',
    body: [],
    status: 200,
    valid: true,
  },
  {
    what: 'full read by id',
    template: paths.getData,
    method: 'post',
    path: '/api/RunConnectionGetData/crm/Customer',
    body: [{ name: 'GETDATA_ID', value: '1' }],
    status: 200,
    valid: true,
  },
  {
    what: 'full read, unknown parameter',
    template: paths.getData,
    method: 'post',
    path: '/api/RunConnectionGetData/crm/Customer',
    body: [{ name: 'GETDATA_TOP', value: '1' }],
    status: 400,
  },
  {
    what: 'full read, no token',
    template: paths.getData,
    method: 'post',
    path: '/api/RunConnectionGetData/crm/Customer',
    body: [],
    token: null,
    status: 401,
  },
  {
    what: 'full read, missing scope',
    template: paths.getData,
    method: 'post',
    path: '/api/RunConnectionGetData/crm/Customer',
    body: [],
    token: tokens.queueOnly,
    status: 403,
  },
  {
    what: 'full read, outside the allow-list',
    template: paths.getData,
    method: 'post',
    path: '/api/RunConnectionGetData/crm/Customer',
    body: [],
    token: tokens.erpWriter,
    status: 403,
  },
  {
    what: 'full read, unknown object',
    template: paths.getData,
    method: 'post',
    path: '/api/RunConnectionGetData/crm/Invoice',
    body: [],
    status: 404,
  },
  {
    what: 'full read, too large',
    template: paths.getData,
    method: 'post',
    path: '/api/RunConnectionGetData/crm/Customer',
    raw: tooLarge,
    headers: json,
    status: 413,
  },
  {
    what: 'full read, not JSON',
    template: paths.getData,
    method: 'post',
    path: '/api/RunConnectionGetData/crm/Customer',
    raw: '[]',
    headers: { 'content-type': 'text/plain' },
    status: 415,
  },
  {
    what: 'full read, malformed JSON',
    template: paths.getData,
    method: 'post',
    path: '/api/RunConnectionGetData/crm/Customer',
    raw: '[',
    headers: json,
    status: 400,
  },
  {
    what: 'full read, wrong method',
    template: paths.getData,
    method: 'delete',
    path: '/api/RunConnectionGetData/crm/Customer',
    status: 405,
  },
  {
    what: 'minimal read',
    template: paths.getDataMin,
    method: 'post',
    path: '/api/RunConnectionGetDataMin/crm/Customer',
    body: [{ name: 'GETDATA_WHERE', value: "addresses.main.country = 'US'" }],
    status: 200,
    valid: true,
  },
  {
    what: 'minimal read of accounts',
    template: paths.getDataMin,
    method: 'post',
    path: '/api/RunConnectionGetDataMin/erp/Account',
    body: [{ name: 'GETDATA_SKIP', value: '0' }],
    status: 200,
    valid: true,
  },
  {
    what: 'minimal read, unknown field',
    template: paths.getDataMin,
    method: 'post',
    path: '/api/RunConnectionGetDataMin/crm/Customer',
    body: [{ name: 'GETDATA_ORDER', value: 'salary' }],
    status: 400,
  },
  {
    what: 'minimal read, unknown system',
    template: paths.getDataMin,
    method: 'post',
    path: '/api/RunConnectionGetDataMin/shop/Customer',
    body: [],
    status: 404,
  },
  {
    what: 'minimal read, no token',
    template: paths.getDataMin,
    method: 'post',
    path: '/api/RunConnectionGetDataMin/crm/Customer',
    token: null,
    status: 401,
  },
  { what: 'one record', template: paths.getDataObject, method: 'get', path: '/api/GetDataObject/crm/Customer/6', status: 200 },
  { what: 'one account', template: paths.getDataObject, method: 'get', path: '/api/GetDataObject/erp/Account/C-2', status: 200 },
  { what: 'one record, absent', template: paths.getDataObject, method: 'get', path: '/api/GetDataObject/crm/Customer/99', status: 404 },
  {
    what: 'one record, missing scope',
    template: paths.getDataObject,
    method: 'get',
    path: '/api/GetDataObject/crm/Customer/1',
    token: tokens.queueOnly,
    status: 403,
  },
  {
    what: 'query with count',
    template: paths.query,
    method: 'post',
    path: '/api/RunConnectionGetQueryData/crm',
    body: query,
    status: 200,
    valid: true,
  },
  {
    what: 'query without count',
    template: paths.query,
    method: 'post',
    path: '/api/RunConnectionGetQueryData/erp',
    body: { columns: [{ Name: 'n', ColumnType: 'Integer' }], Statement: 'SELECT COUNT(*) AS n FROM accounts' },
    status: 200,
    valid: true,
  },
  {
    what: 'query, no columns',
    template: paths.query,
    method: 'post',
    path: '/api/RunConnectionGetQueryData/crm',
    body: { Statement: 'SELECT 1' },
    status: 400,
  },
  {
    what: 'query, missing scope',
    template: paths.query,
    method: 'post',
    path: '/api/RunConnectionGetQueryData/crm',
    body: query,
    token: tokens.reader,
    status: 403,
  },
  {
    what: 'query that writes',
    template: paths.query,
    method: 'post',
    path: '/api/RunConnectionGetQueryData/crm',
    body: { ...query, Statement: 'DELETE FROM customers' },
    status: 403,
  },
  {
    what: 'query the database refuses',
    template: paths.query,
    method: 'post',
    path: '/api/RunConnectionGetQueryData/crm',
    body: { ...query, Statement: 'SELECT nothing FROM nowhere' },
    status: 409,
  },
  {
    what: 'query, unknown system',
    template: paths.query,
    method: 'post',
    path: '/api/RunConnectionGetQueryData/shop',
    body: query,
    status: 404,
  },
  {
    what: 'query, not JSON',
    template: paths.query,
    method: 'post',
    path: '/api/RunConnectionGetQueryData/crm',
    raw: 'x',
    headers: { 'content-type': 'text/csv' },
    status: 415,
  },
  {
    what: 'full write, create',
    template: paths.setData,
    method: 'post',
    path: '/api/RunConnectionSetData/crm/Customer',
    body: {
      name: 'Customer',
      columns: [
        { name: 'name', columnType: 'String', value: 'Hedy Lamarr' },
        { name: 'addresses[main].city', columnType: 'String', value: 'Vienna' },
      ],
    },
    status: 201,
    valid: true,
  },
  {
    what: 'full write, update',
    template: paths.setData,
    method: 'post',
    path: '/api/RunConnectionSetData/erp/Account',
    body: {
      columns: [{ name: 'City', columnType: 'String', value: 'Boston' }],
      idcolumns: [{ name: 'AccountNumber', columnType: 'String', value: 'C-2' }],
    },
    status: 200,
    valid: true,
  },
  {
    what: 'full write, unknown group type',
    template: paths.setData,
    method: 'post',
    path: '/api/RunConnectionSetData/crm/Customer',
    body: { columns: [{ name: 'addresses[home].city', value: 'X' }] },
    status: 400,
  },
  {
    what: 'full write, missing required',
    template: paths.setData,
    method: 'post',
    path: '/api/RunConnectionSetData/crm/Customer',
    body: { columns: [{ name: 'email', value: 'x@example.com' }] },
    status: 409,
  },
  {
    what: 'full write, missing scope',
    template: paths.setData,
    method: 'post',
    path: '/api/RunConnectionSetData/crm/Customer',
    body: { columns: [{ name: 'name', value: 'X' }] },
    token: tokens.reader,
    status: 403,
  },
  {
    what: 'full write, too large',
    template: paths.setData,
    method: 'post',
    path: '/api/RunConnectionSetData/crm/Customer',
    raw: tooLarge,
    headers: json,
    status: 413,
  },
  {
    what: 'minimal write, create',
    template: paths.setDataMin,
    method: 'post',
    path: '/api/RunConnectionSetDataMin/erp/Account',
    body: { AccountNumber: 'C-7', AccountName: 'Hedy Lamarr', SyncedAt: '2024-01-02T03:04:05.000Z' },
    status: 201,
    valid: true,
  },
  {
    what: 'minimal write, update',
    template: paths.setDataMin,
    method: 'post',
    path: '/api/RunConnectionSetDataMin/erp/Account',
    body: { AccountNumber: 'C-7', Country: 'AT' },
    status: 200,
    valid: true,
  },
  {
    what: 'minimal write, group field',
    template: paths.setDataMin,
    method: 'post',
    path: '/api/RunConnectionSetDataMin/crm/Customer',
    body: { name: 'X', addresses: {} },
    status: 400,
  },
  {
    what: 'minimal write, read-only field',
    template: paths.setDataMin,
    method: 'post',
    path: '/api/RunConnectionSetDataMin/crm/Customer',
    body: { id: 1000, name: 'X' },
    status: 403,
  },
  {
    what: 'minimal write, wrong type',
    template: paths.setDataMin,
    method: 'post',
    path: '/api/RunConnectionSetDataMin/crm/Customer',
    body: { name: 'X', active: 'perhaps' },
    status: 400,
  },
  {
    what: 'minimal write, unknown object',
    template: paths.setDataMin,
    method: 'post',
    path: '/api/RunConnectionSetDataMin/erp/Invoice',
    body: { a: 1 },
    status: 404,
  },
  { what: 'ad-hoc start', template: queuePaths.adHoc, method: 'post', path: `/api/StartProcessAdHoc/${syncId}/1`, status: 200 },
  { what: 'ad-hoc start, unknown sync', template: queuePaths.adHoc, method: 'post', path: '/api/StartProcessAdHoc/nope/1', status: 404 },
  {
    what: 'ad-hoc start, source id too long',
    template: queuePaths.adHoc,
    method: 'post',
    path: `/api/StartProcessAdHoc/${syncId}/${'1'.repeat(1025)}`,
    status: 400,
  },
  {
    what: 'ad-hoc start, no token',
    template: queuePaths.adHoc,
    method: 'post',
    path: `/api/StartProcessAdHoc/${syncId}/1`,
    token: null,
    status: 401,
  },
  {
    what: 'ad-hoc start, missing scope',
    template: queuePaths.adHoc,
    method: 'post',
    path: `/api/StartProcessAdHoc/${syncId}/1`,
    token: tokens.queueOnly,
    status: 403,
  },
  {
    what: 'add action',
    template: queuePaths.addAction,
    method: 'post',
    path: '/api/AddAction',
    body: { ProcessId: syncId, StartType: 'manual', WhereClause: 'id > 1', ActionParams: [{ Name: 'a', Value: 'b' }] },
    status: 200,
    valid: true,
  },
  {
    what: 'add action, ad hoc with a source',
    template: queuePaths.addAction,
    method: 'post',
    path: '/api/AddAction',
    body: { ProcessId: syncId, StartType: 'AdHoc', SourceId: '2' },
    status: 200,
    valid: true,
  },
  {
    what: 'add action, bad fields',
    template: queuePaths.addAction,
    method: 'post',
    path: '/api/AddAction',
    body: { ProcessId: syncId, StartType: 'never', Extra: 1 },
    status: 400,
  },
  {
    what: 'add action, bad WhereClause',
    template: queuePaths.addAction,
    method: 'post',
    path: '/api/AddAction',
    body: { ProcessId: syncId, StartType: 'manual', WhereClause: 'salary > 1' },
    status: 400,
  },
  {
    what: 'add action, unknown process',
    template: queuePaths.addAction,
    method: 'post',
    path: '/api/AddAction',
    body: { ProcessId: 'nope', StartType: 'manual' },
    status: 404,
  },
  {
    what: 'add action, not on the allow-list',
    template: queuePaths.addAction,
    method: 'post',
    path: '/api/AddAction',
    body: { ProcessId: 'nope', StartType: 'manual' },
    token: tokens.queueWriter,
    status: 403,
  },
  {
    what: 'add action, not JSON',
    template: queuePaths.addAction,
    method: 'post',
    path: '/api/AddAction',
    raw: 'x',
    headers: { 'content-type': 'text/plain' },
    status: 415,
  },
  {
    what: 'add action, too large',
    template: queuePaths.addAction,
    method: 'post',
    path: '/api/AddAction',
    raw: tooLarge,
    headers: json,
    status: 413,
  },
  { what: 'direct start', template: queuePaths.direct, method: 'post', path: `/api/StartProcessDirect/${syncId}/1`, status: 200 },
  { what: 'direct start, unknown sync', template: queuePaths.direct, method: 'post', path: '/api/StartProcessDirect/nope/1', status: 404 },
  {
    what: 'execute',
    template: queuePaths.execute,
    method: 'post',
    path: `/api/ExecuteProcess/${syncId}`,
    body: { StartType: 'manual', WhereClause: "email <> ''", ActionParams: [] },
    status: 200,
    valid: true,
  },
  {
    what: 'execute, bad start type',
    template: queuePaths.execute,
    method: 'post',
    path: `/api/ExecuteProcess/${syncId}`,
    body: { StartType: 'AdHoc' },
    status: 400,
  },
  {
    what: 'execute, missing scope',
    template: queuePaths.execute,
    method: 'post',
    path: `/api/ExecuteProcess/${syncId}`,
    body: { StartType: 'manual' },
    token: tokens.reader,
    status: 403,
  },
  { what: 'get action, unknown', template: queuePaths.getAction, method: 'get', path: `/api/GetAction/${unknownItem}`, status: 404 },
  {
    what: 'get action, missing scope',
    template: queuePaths.getAction,
    method: 'get',
    path: `/api/GetAction/${unknownItem}`,
    token: tokens.reader,
    status: 403,
  },
  {
    what: 'get action, no token',
    template: queuePaths.getAction,
    method: 'get',
    path: `/api/GetAction/${unknownItem}`,
    token: null,
    status: 401,
  },
  { what: 'queue list', template: queuePaths.list, method: 'get', path: '/api/queue?limit=3&status=Complete,Failed', status: 200 },
  {
    what: 'queue list by finish time',
    template: queuePaths.list,
    method: 'get',
    path: '/api/queue?finishedFrom=2020-01-01&finishedTo=2100-01-01T00:00:00Z',
    status: 200,
  },
  { what: 'queue list, bad status', template: queuePaths.list, method: 'get', path: '/api/queue?status=Done', status: 400 },
  { what: 'queue list, missing scope', template: queuePaths.list, method: 'get', path: '/api/queue', token: tokens.reader, status: 403 },
  { what: 'queue list, no token', template: queuePaths.list, method: 'get', path: '/api/queue', token: null, status: 401 },
  { what: 'cancel, unknown', template: queuePaths.cancel, method: 'post', path: `/api/queue/${unknownItem}/cancel`, status: 404 },
  {
    what: 'cancel, missing scope',
    template: queuePaths.cancel,
    method: 'post',
    path: `/api/queue/${unknownItem}/cancel`,
    token: tokens.queueOnly,
    status: 403,
  },
  { what: 'item events, unknown', template: queuePaths.events, method: 'get', path: `/api/queue/${unknownItem}/events`, status: 404 },
  {
    what: 'item events, missing scope',
    template: queuePaths.events,
    method: 'get',
    path: `/api/queue/${unknownItem}/events`,
    token: tokens.reader,
    status: 403,
  },
  { what: 'retry, unknown', template: queuePaths.retry, method: 'post', path: `/api/queue/${unknownItem}/retry`, status: 404 },
  {
    what: 'retry, no token',
    template: queuePaths.retry,
    method: 'post',
    path: `/api/queue/${unknownItem}/retry`,
    token: null,
    status: 401,
  },
  { what: 'webhook log', template: consolePaths.log, method: 'get', path: `/api/console/webhooks/${webhookId}/log?limit=5`, status: 200 },
  {
    what: 'webhook log, filtered',
    template: consolePaths.log,
    method: 'get',
    path: `/api/console/webhooks/${webhookId}/log?status=2xx,404&origin=call,test&from=2020-01-01&to=2100-01-01&pinned=false`,
    status: 200,
  },
  {
    what: 'webhook log, bad status',
    template: consolePaths.log,
    method: 'get',
    path: `/api/console/webhooks/${webhookId}/log?status=600`,
    status: 400,
  },
  {
    what: 'webhook log, bad limit',
    template: consolePaths.log,
    method: 'get',
    path: `/api/console/webhooks/${webhookId}/log?limit=0`,
    status: 400,
  },
  {
    what: 'webhook log, unknown webhook',
    template: consolePaths.log,
    method: 'get',
    path: '/api/console/webhooks/wh_none/log',
    status: 404,
  },
  {
    what: 'webhook log, no token',
    template: consolePaths.log,
    method: 'get',
    path: `/api/console/webhooks/${webhookId}/log`,
    token: null,
    status: 401,
  },
  {
    what: 'webhook log, missing scope',
    template: consolePaths.log,
    method: 'get',
    path: `/api/console/webhooks/${webhookId}/log`,
    token: tokens.operator,
    status: 403,
  },
  {
    what: 'webhook log entry, unknown',
    template: consolePaths.entry,
    method: 'get',
    path: `/api/console/webhooks/${webhookId}/log/none`,
    status: 404,
  },
  {
    what: 'pin, unknown entry',
    template: consolePaths.pin,
    method: 'post',
    path: `/api/console/webhooks/${webhookId}/log/none/pin`,
    status: 404,
  },
  {
    what: 'unpin, unknown entry',
    template: consolePaths.pin,
    method: 'delete',
    path: `/api/console/webhooks/${webhookId}/log/none/pin`,
    status: 404,
  },
  {
    what: 'replay, unknown entry',
    template: consolePaths.replay,
    method: 'post',
    path: `/api/console/webhooks/${webhookId}/log/none/replay`,
    status: 404,
  },
  {
    what: 'test, neither data nor pin',
    template: consolePaths.test,
    method: 'post',
    path: `/api/console/webhooks/${webhookId}/test`,
    body: {},
    status: 400,
  },
  {
    what: 'test, unknown pin',
    template: consolePaths.test,
    method: 'post',
    path: `/api/console/webhooks/${webhookId}/test`,
    body: { pin: 'none' },
    status: 404,
  },
  {
    what: 'test, not JSON',
    template: consolePaths.test,
    method: 'post',
    path: `/api/console/webhooks/${webhookId}/test`,
    raw: 'x',
    headers: { 'content-type': 'text/plain' },
    status: 415,
  },
  {
    what: 'test, missing scope',
    template: consolePaths.test,
    method: 'post',
    path: `/api/console/webhooks/${webhookId}/test`,
    body: { data: {} },
    token: tokens.reader,
    status: 403,
  },
  {
    what: 'paged webhook, GET',
    template: pagedPath,
    method: 'get',
    path: `${pagedPath}?size=2&start=1&where=${encodeURIComponent('id > 1')}`,
    token: null,
    status: 200,
  },
  {
    what: 'paged webhook, POST',
    template: pagedPath,
    method: 'post',
    path: pagedPath,
    body: { size: '3', start: 0, where: "name LIKE 'A%'" },
    token: null,
    status: 200,
    valid: true,
  },
  {
    what: 'paged webhook, empty page',
    template: pagedPath,
    method: 'post',
    path: pagedPath,
    body: { start: 100, where: null },
    token: null,
    status: 200,
    valid: true,
  },
  {
    what: 'paged webhook, filter on another column',
    template: pagedPath,
    method: 'post',
    path: pagedPath,
    body: { where: 'active = 0' },
    token: null,
    status: 400,
  },
  { what: 'paged webhook, page too large', template: pagedPath, method: 'get', path: `${pagedPath}?size=21`, token: null, status: 400 },
  {
    what: 'webhook with a secret, none sent',
    template: `/api/webhooks/${webhookId}`,
    method: 'post',
    path: `/api/webhooks/${webhookId}`,
    body: { id: 1, event: 'x' },
    token: null,
    status: 403,
  },
  ...Object.entries(consoleInfoPaths).flatMap(([what, path]): Scenario[] => [
    { what: `console ${what}`, template: path, method: 'get', path, status: 200 },
    { what: `console ${what}, missing scope`, template: path, method: 'get', path, token: tokens.reader, status: 403 },
    { what: `console ${what}, no token`, template: path, method: 'get', path, token: null, status: 401 },
  ]),
  { what: 'system', template: systemPath, method: 'get', path: '/api/systems/crm', status: 200 },
  { what: 'system, unknown', template: systemPath, method: 'get', path: '/api/systems/nosuch', status: 404 },
  { what: 'system, missing scope', template: systemPath, method: 'get', path: '/api/systems/crm', token: tokens.reader, status: 403 },
  { what: 'system, no token', template: systemPath, method: 'get', path: '/api/systems/crm', token: null, status: 401 },
  { what: 'interface description', template: '/api/openapi.json', method: 'get', path: '/api/openapi.json', status: 200 },
  {
    what: 'interface description, no token',
    template: '/api/openapi.json',
    method: 'get',
    path: '/api/openapi.json',
    token: null,
    status: 401,
  },
  { what: 'health', template: '/healthz', method: 'get', path: '/healthz', token: null, status: 200 },
  { what: 'readiness', template: '/readyz', method: 'get', path: '/readyz', token: null, status: 200 },
  { what: 'metrics', template: '/metrics', method: 'get', path: '/metrics', token: null, status: 200 },
];

async function openApi(app: HttpApp): Promise<Json> {
  const answer = await app.get('/api/openapi.json');
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.type, 'application/json');
  return answer.json as Json;
}

async function assertValidDocument(document: Json): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document));
  assert.ok(result.valid, `not a valid OpenAPI document: ${JSON.stringify(result.errors, null, 1)?.slice(0, 3000)}`);
  assert.equal(validator.version, '3.1');
}

describe('GET /api/openapi.json', () => {
  let app: HttpApp;
  let document: Json;
  before(async () => {
    app = await quickstartApp({ watch: true, files: { 'paged-hook.yaml': `${pagedHook}---\n${conditionalPagedHook}` } });
    document = await openApi(app);
  });
  after(() => app.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    assert.equal(document.openapi, '3.1.0');
    await assertValidDocument(document);
  });

  it('lists the system keys and object types as enums, and a record schema per object', () => {
    for (const template of Object.values(paths)) {
      const operation = Object.values(document.paths[template] as Json)[0] as Json;
      const parameter = (name: string) => (operation.parameters as Json[]).find((p) => p.name === name);
      assert.deepEqual(parameter('system_key')?.schema.enum, ['crm', 'erp'], template);
      if (template.includes('{object_type}')) assert.deepEqual(parameter('object_type')?.schema.enum, ['Customer', 'Account'], template);
    }
    const customer = document.components.schemas['Record.crm.Customer'] as Json;
    assert.deepEqual(Object.keys(customer.properties), ['id', 'name', 'email', 'active', 'updated_at', 'addresses']);
    assert.deepEqual(Object.keys(customer.properties.addresses.properties), ['main', 'invoice']);
    assert.deepEqual(Object.keys(document.components.schemas['Record.erp.Account'].properties), [
      'AccountNumber',
      'AccountName',
      'Email',
      'City',
      'Country',
      'SyncedAt',
    ]);
  });

  it('documents every route the server answers, with operation ids', () => {
    assert.deepEqual(
      Object.keys(document.paths).sort(),
      [
        ...Object.values(paths),
        ...Object.values(queuePaths),
        ...Object.values(consolePaths),
        ...Object.values(consoleInfoPaths),
        systemPath,
        `/api/webhooks/${webhookId}`,
        pagedPath,
        `/api/webhooks/${conditionalPagedId}`,
        '/api/openapi.json',
        '/healthz',
        '/readyz',
        '/metrics',
      ].sort(),
    );
    const operationIds = Object.values(document.paths as Json).flatMap((item) =>
      Object.values(item as Json).map((operation) => (operation as Json).operationId),
    );
    for (const id of [
      'StartProcessAdHoc',
      'AddAction',
      'StartProcessDirect',
      'ExecuteProcess',
      'GetAction',
      'RunConnectionGetData',
      'RunConnectionGetDataMin',
      'GetDataObject',
      'RunConnectionGetQueryData',
      'RunConnectionSetData',
      'RunConnectionSetDataMin',
    ])
      assert.ok(operationIds.includes(id), id);
    assert.equal(new Set(operationIds).size, operationIds.length, 'operation ids are unique');
  });

  it('describes every answer of every route: status, media type and body', async () => {
    const checker = new DocumentChecker(document);
    for (const scenario of scenarios) {
      const answer = await app.call(scenario.method.toUpperCase(), scenario.path, {
        ...(scenario.token === undefined ? {} : { token: scenario.token }),
        ...(scenario.body === undefined ? {} : { body: scenario.body }),
        ...(scenario.raw === undefined ? {} : { raw: scenario.raw }),
        ...(scenario.headers === undefined ? {} : { headers: scenario.headers }),
      });
      assert.equal(answer.status, scenario.status, `${scenario.what}: ${answer.text.slice(0, 300)}`);
      checker.checkAnswer(scenario.template, scenario.method, answer, scenario.what);
      if (scenario.valid) checker.checkRequest(scenario.template, scenario.method, scenario.body, scenario.what);
    }
  });

  it('has one path per webhook: GET and POST, its request schema as JSON, form and query, the queue item it answers, no bearer token', () => {
    const item = document.paths[`/api/webhooks/${webhookId}`] as Json;
    assert.deepEqual(Object.keys(item).sort(), ['get', 'post']);
    const requestSchema = { type: 'object', required: ['id', 'event'], properties: { id: { type: 'integer' }, event: { type: 'string' } } };
    assert.deepEqual(item.post.requestBody.content['application/json'].schema, requestSchema);
    assert.deepEqual(item.post.requestBody.content['application/x-www-form-urlencoded'].schema, requestSchema);
    assert.deepEqual(
      item.get.parameters.filter((p: Json) => p.in === 'query').map((p: Json) => [p.name, p.required]),
      [
        ['id', true],
        ['event', true],
      ],
    );
    assert.ok(item.get.parameters.some((p: Json) => p.in === 'header' && p.name === 'service_webhooksecret'));
    for (const operation of [item.get, item.post]) {
      assert.deepEqual(operation.security, []);
      assert.deepEqual(operation.responses[200].content['application/json'].schema, { $ref: '#/components/schemas/QueueItem' });
      for (const status of ['204', '400', '403', '404', '410']) assert.ok(operation.responses[status], status);
    }
    assert.ok(item.post.responses[413] && !item.get.responses[413]);
    assert.deepEqual(
      [...document.paths[consolePaths.log].get.parameters[0].schema.enum].sort(),
      [pagedId, conditionalPagedId, webhookId].sort(),
    );
  });

  it('describes a paged webhook: its paging properties under their names, {data, total}, and no 403 without a secret', () => {
    const item = document.paths[pagedPath] as Json;
    const query = (operation: Json) =>
      Object.fromEntries((operation.parameters as Json[]).filter((p) => p.in === 'query').map((p) => [p.name, p.schema]));
    for (const operation of [item.get, item.post]) {
      assert.deepEqual(Object.keys(query(operation)), ['size', 'start', 'where']);
      assert.deepEqual(query(operation).size, { type: 'integer', minimum: 1, maximum: 20, default: 50 });
      assert.deepEqual(query(operation).start, { type: 'integer', minimum: 0, default: 0 });
      assert.equal(query(operation).where.type, 'string');
      assert.match(
        (operation.parameters as Json[]).find((p) => p.name === 'where')?.description,
        /over the query's columns id, name, email, city; AND-ed with the webhook's query filter/,
      );
      const answer = operation.responses[200].content['application/json'].schema;
      assert.deepEqual(answer.required, ['data', 'total']);
      assert.deepEqual(Object.keys(answer.properties.data.items.properties), ['id', 'name', 'email', 'city']);
      assert.deepEqual(answer.properties.data.items.properties.id, { type: ['integer', 'null'] });
      // No secret, no signature: nothing to refuse with 403 or 401, and no secret header to send.
      assert.ok(!operation.responses[403] && !operation.responses[401], Object.keys(operation.responses).join());
      assert.ok(!(operation.parameters as Json[]).some((p) => p.in === 'header'));
      // It answers a page, empty or not: never 204.
      assert.ok(!operation.responses[204], Object.keys(operation.responses).join());
    }
    // Unless an execution condition may stop it.
    const conditional = document.paths[`/api/webhooks/${conditionalPagedId}`] as Json;
    for (const operation of [conditional.get, conditional.post])
      assert.match(operation.responses[204]?.description, /execution condition was false/);
    const body = item.post.requestBody.content['application/json'].schema;
    assert.deepEqual(Object.keys(body.properties), ['size', 'start', 'where']);
    assert.deepEqual(item.post.requestBody.content['application/x-www-form-urlencoded'].schema, body);
    // The start-sync webhook has a secret: 403 and the header are there.
    const secured = document.paths[`/api/webhooks/${webhookId}`] as Json;
    assert.ok(secured.post.responses[403] && !secured.post.responses[401]);
    assert.ok(!Object.hasOwn(secured.post.requestBody.content['application/json'].schema.properties, 'size'));
  });

  it('describes the entries of the webhook log and the stream of a test', async () => {
    const checker = new DocumentChecker(document);
    const id = await record(app, webhookId, { queueItemId: unknownItem, logPayload: true });
    checker.checkAnswer(consolePaths.log, 'get', await app.get(`/api/console/webhooks/${webhookId}/log`), 'log page');
    checker.checkAnswer(consolePaths.entry, 'get', await app.get(`/api/console/webhooks/${webhookId}/log/${id}`), 'log entry');
    checker.checkAnswer(consolePaths.pin, 'post', await app.post(`/api/console/webhooks/${webhookId}/log/${id}/pin`), 'pin');
    checker.checkAnswer(consolePaths.pin, 'delete', await app.call('DELETE', `/api/console/webhooks/${webhookId}/log/${id}/pin`), 'unpin');
    checker.checkAnswer(
      consolePaths.replay,
      'post',
      await app.post(`/api/console/webhooks/${webhookId}/log/${id}/replay`),
      'replay, unpinned',
    );
    checker.checkRequest(consolePaths.test, 'post', { data: { id: 1 } }, 'test with data');
    checker.checkRequest(consolePaths.test, 'post', { pin: id }, 'test with a pin');
  });

  it('describes each record exactly by its own object schema', async () => {
    const checker = new DocumentChecker(document);
    const records = [
      ...((await app.post('/api/RunConnectionGetDataMin/crm/Customer', [])).json as Json[]).map(
        (record) => ['crm', 'Customer', record] as const,
      ),
      ...((await app.post('/api/RunConnectionGetDataMin/erp/Account', [])).json as Json[]).map(
        (record) => ['erp', 'Account', record] as const,
      ),
    ];
    assert.ok(records.length >= 7);
    for (const [system, object, record] of records) {
      const own = checker.record(system, object);
      assert.ok(own(record), `${system}/${object} ${JSON.stringify(record)}: ${JSON.stringify(own.errors)}`);
      const other = checker.record(system === 'crm' ? 'erp' : 'crm', system === 'crm' ? 'Account' : 'Customer');
      assert.ok(!other(record), `a ${object} record must not pass as the other object: ${JSON.stringify(record)}`);
    }
  });

  it('lists the sync and flow ids as enums, and describes a polled item', async () => {
    const parameter = (template: string) =>
      ((Object.values(document.paths[template] as Json)[0] as Json).parameters as Json[]).find((p) => p.name === 'syncId');
    assert.deepEqual(parameter(queuePaths.adHoc)?.schema.enum, [syncId]);
    assert.deepEqual(parameter(queuePaths.direct)?.schema.enum, [syncId]);
    assert.deepEqual(parameter(queuePaths.execute)?.schema.enum, [syncId]);
    assert.deepEqual(document.paths[queuePaths.addAction].post.requestBody.content['application/json'].schema.properties.ProcessId.enum, [
      syncId,
    ]);
    const started = await app.post(`/api/StartProcessAdHoc/${syncId}/3`);
    const checker = new DocumentChecker(document);
    checker.checkAnswer(queuePaths.getAction, 'get', await app.get(`/api/GetAction/${started.json.ID}`), 'get action');
    checker.checkAnswer(
      queuePaths.getAction,
      'get',
      await app.get(`/api/GetAction/${started.json.ID}`, tokens.queueOnly),
      'get action, queue:read',
    );
    // Cancel answers the item, now Failed; a second cancel and a retry of a Pending item are 409s;
    // the retry of the cancelled (Failed) item is a 201 with the new item.
    const cancelled = await app.post(`/api/queue/${started.json.ID}/cancel`);
    assert.equal(cancelled.status, 200, cancelled.text);
    checker.checkAnswer(queuePaths.cancel, 'post', cancelled, 'cancel');
    checker.checkAnswer(queuePaths.cancel, 'post', await app.post(`/api/queue/${started.json.ID}/cancel`), 'cancel, not Pending');
    const retried = await app.post(`/api/queue/${started.json.ID}/retry`);
    assert.equal(retried.status, 201, retried.text);
    checker.checkAnswer(queuePaths.retry, 'post', retried, 'retry');
    const notFailed = await app.post(`/api/queue/${retried.json.ID}/retry`);
    assert.equal(notFailed.status, 409, notFailed.text);
    checker.checkAnswer(queuePaths.retry, 'post', notFailed, 'retry, not Failed');
    const listed = await app.get(`/api/queue?sync=${syncId}&limit=2`);
    assert.deepEqual(
      listed.json.items.map((item: Json) => item.ID),
      [retried.json.ID, started.json.ID],
    );
    checker.checkAnswer(queuePaths.list, 'get', listed, 'queue list with a retry');
  });

  it('describes the 202 of a run past the time limit, and a 503 of /readyz', async () => {
    const slow = await quickstartApp({
      syncTimeLimitMs: 20,
      runProcess: (real) => async (environment, start) => {
        await sleep(300);
        return real(environment, start);
      },
    });
    try {
      const checker = new DocumentChecker(document);
      const accepted = await slow.post(`/api/ExecuteProcess/${syncId}`, { StartType: 'manual' });
      assert.equal(accepted.status, 202, accepted.text);
      checker.checkAnswer(queuePaths.execute, 'post', accepted, 'execute past the limit');
      const direct = await slow.post(`/api/StartProcessDirect/${syncId}/1`);
      assert.equal(direct.status, 202, direct.text);
      checker.checkAnswer(queuePaths.direct, 'post', direct, 'direct start past the limit');
      for (const id of [accepted.json.ID, direct.json.ID]) {
        for (let polled = await slow.get(`/api/GetAction/${id}`); ; polled = await slow.get(`/api/GetAction/${id}`)) {
          checker.checkAnswer(queuePaths.getAction, 'get', polled, 'polled item');
          if (polled.json.Status !== 'InProgress') break;
          await sleep(25);
        }
      }
      await slow.db.close();
      const unready = await slow.get('/readyz', null);
      assert.equal(unready.status, 503, unready.text);
      checker.checkAnswer('/readyz', 'get', unready, 'readiness without a database');
    } finally {
      await slow.close();
    }
  });

  it('publishes the request schemas the routes check bodies against', () => {
    assert.deepEqual(document.components.schemas.ExecuteProcessBody, executeProcessBody.schema);
    const addAction = document.paths['/api/AddAction'].post.requestBody.content['application/json'].schema as Json;
    assert.deepEqual(
      { ...addAction, properties: { ...addAction.properties, ProcessId: addActionBody.schema.properties.ProcessId } },
      addActionBody.schema,
      'the route schema, with the process ids as an enum',
    );
  });

  it('is served the same to every client and needs a token', async () => {
    assert.deepEqual(await app.get('/api/openapi.json', tokens.reader).then((a) => a.json), document);
    assert.equal((await app.get('/api/openapi.json', null)).status, 401);
  });

  it('grows its enums on a hot reload, and keeps them on a rejected one', async () => {
    const systemsFile = join(app.definitions, 'systems.yaml');
    const original = await readFile(systemsFile, 'utf8');
    const documents = parseAllDocuments(original);
    const erp = documents.find((d) => !Array.isArray(d) && d.get('id') === 'erp');
    assert.ok(erp && !Array.isArray(erp));
    erp.setIn(
      ['objects', 'Invoice'],
      erp.createNode({
        table: 'invoices',
        key: ['InvoiceNumber'],
        fields: { InvoiceNumber: { type: 'String' }, Total: { type: 'Number' }, Paid: { type: 'Boolean' } },
      }),
    );
    await replace(systemsFile, documents.map((d) => String(d)).join('---\n'));
    const grown = await until(app, (d) => enumOf(d, paths.getData, 'object_type').includes('Invoice'));
    assert.deepEqual(enumOf(grown, paths.getData, 'object_type'), ['Customer', 'Account', 'Invoice']);
    assert.deepEqual(Object.keys(grown.components.schemas['Record.erp.Invoice'].properties), ['InvoiceNumber', 'Total', 'Paid']);
    await assertValidDocument(grown);

    await writeFile(
      join(app.definitions, 'billing.yaml'),
      `kind: System\nid: billing\nconnector: sql\nconnection: { client: sqlite3, filename: "\${env:ERP_DB}" }\nobjects:\n  Payment:\n    table: payments\n    key: [id]\n    fields: { id: { type: Integer } }\n`,
    );
    const withSystem = await until(app, (d) => enumOf(d, paths.query, 'system_key').includes('billing'));
    assert.deepEqual(enumOf(withSystem, paths.query, 'system_key').sort(), ['billing', 'crm', 'erp']);
    assert.ok(enumOf(withSystem, paths.setDataMin, 'object_type').includes('Payment'));
    await assertValidDocument(withSystem);

    const digest = app.holder.current.digest;
    await replace(systemsFile, original.replace('key: [AccountNumber]', 'key: [NoSuchField]'));
    const deadline = performance.now() + 5000;
    while (app.holder.status.ok) {
      assert.ok(performance.now() < deadline, 'the broken edit was noticed');
      await sleep(20);
    }
    assert.equal(app.holder.current.digest, digest);
    assert.deepEqual(await openApi(app), withSystem, 'a rejected reload leaves the document as it was');
  });
});

function enumOf(document: Json, template: string, parameter: string): string[] {
  const operation = Object.values(document.paths[template] as Json)[0] as Json;
  return ((operation.parameters as Json[]).find((p) => p.name === parameter)?.schema.enum ?? []) as string[];
}

async function replace(file: string, text: string): Promise<void> {
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
}

async function until(app: HttpApp, condition: (document: Json) => boolean): Promise<Json> {
  const deadline = performance.now() + 5000;
  for (;;) {
    const document = await openApi(app);
    if (condition(document)) return document;
    assert.ok(
      performance.now() < deadline,
      `the document did not change within 5 s; last reload: ${JSON.stringify(app.holder.status.problems)}`,
    );
    await sleep(20);
  }
}
