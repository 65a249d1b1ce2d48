/**
 * Reading a webhook's form body into fields: a repeated name becomes its values in order, in one
 * pass over the body, and a body of more fields than a webhook reads is refused before it is read. The body is read before the endpoint checks the caller's secret, so anyone
 * who knows the URL can send such a body; its cost once grew with the square of the repeats (a
 * form of 400 KB held the server's event loop for 77 s).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HttpProblem } from '../../../../runtime/errors.js';
import { maxFormFields, webhookRequestOf } from '../../../../runtime/webhooks/read-webhook-body.js';

const formOf = (raw: string) =>
  webhookRequestOf({
    method: 'POST',
    query: {},
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    rawBody: Buffer.from(raw),
  });

const bodyOf = (contentType: string, rawBody: Buffer) =>
  webhookRequestOf({ method: 'POST', query: {}, headers: { 'content-type': contentType }, rawBody });

describe('webhook form bodies', () => {
  it('gives a name sent once its value, and one sent again all its values in order', async () => {
    const request = await formOf('name=Ann&tag=x&tag=y&tag=z');
    assert.deepEqual({ ...(request.data as object) }, { name: 'Ann', tag: ['x', 'y', 'z'] });
  });

  it('reads a form holding one name as often as a form may hold fields, every value in order', async () => {
    const request = await formOf(`id=1&${Array.from({ length: maxFormFields - 1 }, (_, index) => `f=${index}`).join('&')}`);
    const { id, f } = request.data as { id: string; f: string[] };
    assert.equal(id, '1');
    assert.equal(f.length, maxFormFields - 1);
    assert.deepEqual([f[0], f[1], f.at(-1)], ['0', '1', String(maxFormFields - 2)]);
  });

  // The timeout only stops a run that would take minutes; the test asserts the refusal.
  it('refuses a form holding one name 100,000 times before reading it', { timeout: 30_000 }, async () => {
    await assert.rejects(formOf(`id=1&${Array.from({ length: 100_000 }, (_, index) => `f=${index}`).join('&')}`), (error: HttpProblem) => {
      assert.equal(error.status, 400);
      assert.match(error.message, /The form body has more than 1000 fields; a webhook reads at most 1000/);
      return true;
    });
  });
});

describe('webhook multipart bodies', () => {
  const multipart = (boundary: string, count: number) =>
    Buffer.from(
      `${Array.from({ length: count }, (_, index) => `--${boundary}\r\nContent-Disposition: form-data; name="f${index}"\r\n\r\nv\r\n`).join('')}--${boundary}--\r\n`,
    );

  it('reads as many parts as a form may hold fields, under a quoted boundary too', async () => {
    const plain = await bodyOf('multipart/form-data; boundary=XyZ', multipart('XyZ', maxFormFields));
    assert.equal(Object.keys(plain.data as object).length, maxFormFields);
    const quoted = await bodyOf('multipart/form-data; boundary="a b"', multipart('a b', 3));
    assert.deepEqual({ ...(quoted.data as object) }, { f0: 'v', f1: 'v', f2: 'v' });
  });

  it('refuses a body of more parts before parsing any', async () => {
    for (const count of [maxFormFields + 1, 50_000]) {
      await assert.rejects(bodyOf('multipart/form-data; charset=utf-8; boundary=XyZ', multipart('XyZ', count)), (error: HttpProblem) => {
        assert.equal(error.status, 400);
        assert.match(error.message, /The multipart\/form-data body has more than 1000 parts; a webhook reads at most 1000 fields/);
        return true;
      });
    }
  });
});

describe('webhook body encodings', () => {
  it('refuses JSON that is not UTF-8 with 400 at its first such byte, and any charset but UTF-8 with 415', async () => {
    await assert.rejects(bodyOf('application/json', Buffer.from('{"name": "Jos\u00e9"}', 'latin1')), (error: HttpProblem) => {
      assert.equal(error.status, 400);
      assert.match(error.message, /not UTF-8 at byte 13/);
      return true;
    });
    for (const type of ['application/json; charset=utf-16le', 'application/x-www-form-urlencoded; charset=iso-8859-1']) {
      await assert.rejects(bodyOf(type, Buffer.from('{}')), (error: HttpProblem) => {
        assert.equal(error.status, 415, type);
        return true;
      });
    }
    const utf8 = await bodyOf('application/json; charset=UTF-8', Buffer.from('{"name": "Jos\u00e9"}'));
    assert.deepEqual(utf8.data, { name: 'José' });
  });
});
