/** Refusals of write values name the field, what it takes and what came, in plain English. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { engines } from '../../../../connectors/sql/engines/index.js';
import { encodeValue } from '../../../../connectors/sql/value-codec.js';

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ConnectorError);
    assert.equal(error.code, 'invalid-value');
    return error.message;
  }
  assert.fail('the value was accepted');
}

const target = { engine: engines.postgres, label: 'Order.status' };

test('an object where text belongs is "an object"', () => {
  assert.equal(
    refusal(() => encodeValue('String', { a: 1 }, target)),
    'Order.status: expected text, got an object',
  );
});

test('a string of the wrong form is quoted, so that the caller sees which value is meant', () => {
  assert.equal(
    refusal(() => encodeValue('DateTime', '2024-02-30T00:00:00Z', { ...target, label: 'Order.placed_at' })),
    "Order.placed_at: expected an ISO 8601 date-time, got '2024-02-30T00:00:00Z'",
  );
  const long = refusal(() => encodeValue('Integer', 'x'.repeat(100), target));
  assert.ok(long.length < 120, long);
  assert.match(long, /got 'x+…'$/);
});
