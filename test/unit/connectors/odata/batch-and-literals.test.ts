/**
 * The odata connector's own formats: literals and key predicates in URLs, `$batch` bodies and
 * answers in JSON and multipart (as SAP CAP writes them: one part per changeset, a failed changeset
 * as one answer), and the fields an OData error body points at.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { JsonNumberText } from '../../../../connectors/records/json-number-text.js';
import type { BatchRequest, ChangesetOutcome, ChangesetReading } from '../../../../connectors/odata/batch/batch-parts.js';
import { jsonBatchBody, readJsonBatch } from '../../../../connectors/odata/batch/json-batch.js';
import { boundaryOf, multipartBatchBody, readMultipartBatch } from '../../../../connectors/odata/batch/multipart-batch.js';
import { keyPredicate, literal, plainNumber } from '../../../../connectors/odata/odata-literals.js';
import type { BoundObject } from '../../../../connectors/odata/object-model.js';
import { fieldsNamed, refusedWrite } from '../../../../connectors/odata/write-errors.js';

describe('literals', () => {
  test('numbers in plain decimal notation', () => {
    assert.equal(plainNumber(1e21), '1000000000000000000000');
    assert.equal(plainNumber(1.5e-7), '0.00000015');
    assert.equal(plainNumber(-2.5e25), '-25000000000000000000000000');
    assert.equal(plainNumber(123.456), '123.456');
    assert.equal(literal('double', -0), '0');
  });

  test('key predicates are percent-encoded path segments, quotes doubled', () => {
    assert.equal(keyPredicate([{ name: 'id', edm: 'integer' }], { id: 7 }), '(7)');
    assert.equal(keyPredicate([{ name: 'n', edm: 'text' }], { n: "A/'#%?&+ 1🙂" }), "('A%2F''%23%25%3F%26%2B%201%F0%9F%99%82')");
    assert.equal(
      keyPredicate(
        [
          { name: 'customer_id', edm: 'integer' },
          { name: 'type', edm: 'text' },
        ],
        { customer_id: 7, type: 'main' },
      ),
      "(customer_id=7,type='main')",
    );
    // A key trying to end the literal stays one literal: its quotes are doubled, its spaces encoded.
    assert.equal(keyPredicate([{ name: 'n', edm: 'text' }], { n: "x') or true or ('" }), "('x'')%20or%20true%20or%20(''')");
    assert.throws(() => literal('integer', '7 or 1'), /cannot write a value that is not a whole number/);
    assert.throws(() => literal('guid', "x') or ('"), /not a GUID/);
  });

  test('a missing value or one of the wrong kind is refused, never written as undefined or false', () => {
    for (const edm of ['text', 'boolean', 'integer', 'guid', 'date'] as const) {
      assert.throws(() => literal(edm, undefined), /cannot write a missing value/, edm);
      assert.throws(() => literal(edm, null), /cannot write a missing value/, edm);
    }
    assert.throws(() => literal('boolean', 'yes'), /not true or false for an Edm\.Boolean property/);
    assert.throws(() => literal('boolean', 1), /not true or false/);
    assert.equal(literal('boolean', false), 'false');
    assert.throws(() => literal('text', { a: 1 }), /not text/);
    assert.throws(() => keyPredicate([{ name: 'id', edm: 'integer' }], {}), /missing value/);
  });
});

/** A reading that is an outcome (neither unknown nor unmentioned). */
function outcome(reading: ChangesetReading): ChangesetOutcome {
  assert.ok(typeof reading === 'object', `expected an outcome, got ${String(reading)}`);
  return reading;
}

const changesets: BatchRequest[][] = [
  [
    { method: 'PATCH', url: 'Customers(1)', body: { score: 6 } },
    { method: 'PATCH', url: "Customers(1)/addresses(customer_id=1,type='main')", body: { country: 'GBRX' } },
  ],
  [{ method: 'POST', url: 'Customers', headers: { prefer: 'return=representation' }, body: { id: 10, name: 'ten' } }],
];

describe('JSON $batch', () => {
  test('one atomicity group per changeset', () => {
    const body = jsonBatchBody(changesets) as { requests: Array<Record<string, unknown>> };
    assert.deepEqual(
      body.requests.map((request) => [request.id, request.atomicityGroup, request.method, request.url]),
      [
        ['r0-0', 'g0', 'PATCH', 'Customers(1)'],
        ['r0-1', 'g0', 'PATCH', "Customers(1)/addresses(customer_id=1,type='main')"],
        ['r1-0', 'g1', 'POST', 'Customers'],
      ],
    );
    assert.deepEqual(body.requests[2]!.headers, { 'content-type': 'application/json', prefer: 'return=representation' });
  });

  test('a group with a failed request failed, whatever the others answered; the rest are read by id', () => {
    const outcomes = readJsonBatch(
      {
        responses: [
          { id: 'r1-0', status: 201, body: { id: 10 } },
          { id: 'r0-0', status: 200, atomicityGroup: 'g0', body: {} },
          { id: 'r0-1', status: 400, atomicityGroup: 'g0', body: { error: { target: 'country' } } },
        ],
      },
      changesets,
    )!;
    const first = outcome(outcomes[0]);
    assert.equal(first.ok, false);
    assert.equal(first.ok === false && first.request.url, "Customers(1)/addresses(customer_id=1,type='main')");
    assert.deepEqual(outcomes[1], { ok: true, answers: [{ status: 201, headers: {}, body: { id: 10 }, text: '{"id":10}' }] });
    assert.equal(readJsonBatch({ error: {} }, changesets), null);
    assert.deepEqual(readJsonBatch({ responses: [] }, changesets), [undefined, undefined]);
  });

  test('an answer whose body nests 20,000 levels is read, its text a note instead of a RangeError', () => {
    let deep: unknown = { id: 10 };
    for (let level = 0; level < 20_000; level += 1) deep = { inner: deep };
    const outcomes = readJsonBatch({ responses: [{ id: 'r1-0', status: 201, body: deep }] }, changesets)!;
    assert.equal(outcome(outcomes[1]).ok, true);
    assert.equal(
      outcomes[1] !== undefined && outcomes[1] !== 'unknown' && outcomes[1].ok && outcomes[1].answers[0]!.text,
      '[a body nested too deeply to keep as text]',
    );
  });

  test('a changeset answered in part, or without a readable status, has an unknown outcome; one not mentioned has none', () => {
    const partly = readJsonBatch({ responses: [{ id: 'r0-0', status: 200, atomicityGroup: 'g0', body: {} }] }, changesets)!;
    assert.deepEqual(partly, ['unknown', undefined]);
    const unreadable = readJsonBatch(
      {
        responses: [
          { id: 'r0-0', status: 200, body: {} },
          { id: 'r0-1', status: 200, body: {} },
          { id: 'r1-0', status: 'Created', body: { id: 10 } },
        ],
      },
      changesets,
    )!;
    assert.equal(outcome(unreadable[0]).ok, true);
    assert.equal(unreadable[1], 'unknown');
  });
});

describe('multipart $batch', () => {
  test('a part per changeset, a Content-ID per request, random boundaries', () => {
    const { contentType, body } = multipartBatchBody(changesets);
    const boundary = boundaryOf(contentType)!;
    assert.match(boundary, /^batch_[0-9a-f-]{36}$/);
    assert.equal(body.split(`--${boundary}\r\nContent-Type: multipart/mixed; boundary=changeset_`).length, 3);
    assert.match(body, /Content-ID: 1\r\n\r\nPATCH Customers\(1\) HTTP\/1\.1\r\nContent-Type: application\/json\r\n\r\n\{"score":6\}\r\n/);
    assert.match(
      body,
      /Content-ID: 3\r\n\r\nPOST Customers HTTP\/1\.1\r\nContent-Type: application\/json\r\nprefer: return=representation\r\n/,
    );
    assert.ok(body.endsWith(`--${boundary}--\r\n`));
  });

  test('a number carried as its text (an Int64 past 2^53) is a bare number in the part', () => {
    const { body } = multipartBatchBody([
      [{ method: 'POST', url: 'Entries', body: { id: new JsonNumberText('9007199254740993'), note: 'x' } }],
    ]);
    assert.match(body, /\r\n\{"id":9007199254740993,"note":"x"\}\r\n/);
  });

  test("SAP CAP's answer: a failed changeset as one answer, a successful one as a nested multipart", () => {
    const answer = [
      '--batch_1',
      'content-type: application/http',
      'content-transfer-encoding: binary',
      'content-id: 2',
      '',
      'HTTP/1.1 400 Bad Request',
      'content-type: application/json; charset=utf-8',
      '',
      '{"error":{"message":"Value GBRX is not a valid String(2)","target":"country"}}',
      '--batch_1',
      'content-type: multipart/mixed;boundary=changeset_b',
      '',
      '--changeset_b',
      'content-type: application/http',
      'content-transfer-encoding: binary',
      'content-id: 3',
      '',
      'HTTP/1.1 201 Created',
      'location: Customers(10)',
      'content-type: application/json; charset=utf-8',
      '',
      '{"id":10,"name":"ten"}',
      '--changeset_b--',
      '--batch_1--',
      '',
    ].join('\r\n');
    const [readFailed, readCreated] = readMultipartBatch('multipart/mixed;boundary=batch_1', answer, changesets)!;
    const failed = outcome(readFailed);
    assert.equal(failed.ok, false);
    if (failed.ok === false) {
      assert.equal(failed.failure.status, 400);
      assert.deepEqual(failed.failure.body, { error: { message: 'Value GBRX is not a valid String(2)', target: 'country' } });
      assert.equal(failed.request, changesets[0]![1]);
    }
    const created = outcome(readCreated);
    assert.equal(created.ok, true);
    if (created.ok) assert.deepEqual(created.answers[0]!.body, { id: 10, name: 'ten' });
    // Line ends of LF alone, a quoted boundary, and an answer that stops early.
    const short = readMultipartBatch(
      'multipart/mixed; boundary="batch_1"',
      answer.split('--batch_1\r\ncontent-type: multipart')[0]!.replaceAll('\r\n', '\n'),
      changesets,
    )!;
    assert.equal(outcome(short[0]).ok, false);
    assert.equal(short[1], undefined);
    assert.equal(readMultipartBatch('application/json', '{}', changesets), null);
    // A part that is there but cannot be read: the service may have written it.
    const garbled = readMultipartBatch('multipart/mixed;boundary=batch_1', answer.replace('HTTP/1.1 201 Created', 'garbled'), changesets)!;
    assert.equal(outcome(garbled[0]).ok, false);
    assert.equal(garbled[1], 'unknown');
  });
});

describe('errors of refused writes', () => {
  const bound = {
    systemId: 'crm',
    object: { name: 'Customer' },
    fields: new Map([['score', {}]]),
    groups: new Map([
      [
        'addresses',
        {
          member: 'addresses',
          group: { name: 'addresses', types: ['main', 'invoice'] },
          typeField: { name: 'type' },
          fields: new Map([['country', {}]]),
        },
      ],
    ]),
  } as unknown as BoundObject;

  test('targets become the fields as the caller writes them; others are passed over', () => {
    const body = {
      error: {
        message: 'SECRET upstream words',
        target: 'score',
        details: [
          { target: "addresses(type='main')/country" },
          { target: 'in/score' },
          { target: 'CrmService.Customers' },
          { target: "addresses(customer_id=1,type='invoice')/country" },
        ],
      },
    };
    assert.deepEqual(fieldsNamed(bound, body), [
      'Customer.score',
      'Customer.addresses[main].country',
      'Customer.addresses[invoice].country',
    ]);
    assert.deepEqual(fieldsNamed(bound, { error: { target: 'country' } }, { group: 'addresses', type: 'main' }), [
      'Customer.addresses[main].country',
    ]);
  });

  test('messages in our words, by status', () => {
    const cause = new Error('upstream');
    const refused = refusedWrite(bound, 400, { error: { message: 'SECRET upstream words', target: 'score' } }, cause);
    assert.equal(refused.code, 'rejected');
    assert.equal(refused.message, 'Customer: the service refused the values (HTTP 400); it named Customer.score');
    assert.equal(refused.cause, cause);
    assert.deepEqual(refused.details, { system: 'crm', object: 'Customer', status: 400, fields: ['Customer.score'] });
    assert.match(refusedWrite(bound, 409, undefined, cause).message, /conflict with its data/);
    assert.match(refusedWrite(bound, 412, undefined, cause).message, /changed since it was read/);
    assert.equal(refusedWrite(bound, 500, undefined, cause).code, 'unavailable');
  });
});
