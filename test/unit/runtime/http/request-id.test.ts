/** Which X-Request-Id values are taken as sent, and which are replaced. No server needed. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { acceptedRequestId, requestIdMaxLength } from '../../../../runtime/http/request-id.js';

test('printable ASCII up to 128 characters is taken as sent', () => {
  for (const id of [
    'a',
    'f3b2c1d0-0000-4000-8000-000000000001',
    'trace=4bf92f3577b34da6;span=00f067aa0ba902b7',
    '~!#$%&*+',
    'with inner spaces',
  ]) {
    assert.equal(acceptedRequestId(id), id, id);
  }
  assert.equal(acceptedRequestId('x'.repeat(requestIdMaxLength)), 'x'.repeat(128));
  assert.equal(acceptedRequestId('  padded  '), 'padded', 'surrounding spaces are dropped');
});

test('anything else is refused, so a new id is made', () => {
  for (const id of [
    undefined,
    '',
    '   ',
    'x'.repeat(requestIdMaxLength + 1),
    'line\nbreak',
    'carriage\rreturn',
    'tab\there',
    'nul\u0000',
    'del\u007f',
    'caf\u00e9',
    'emoji \u{1F600}',
    '\u202eright-to-left',
  ]) {
    assert.equal(acceptedRequestId(id), undefined, JSON.stringify(id));
  }
});
