import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseExactJson } from '../../../../connectors/records/exact-json.js';
import { JsonNumberText, jsonValueOf, resentInteger, stringifyJson, unmarked } from '../../../../connectors/records/json-number-text.js';

test('a number carried as text is written bare, with every digit, wherever it sits', () => {
  const body = {
    id: new JsonNumberText('9007199254740993'),
    amount: new JsonNumberText('-12345678901234567.25'),
    nested: { list: [new JsonNumberText('18446744073709551615'), 'text'], tiny: new JsonNumberText('1.5e-400') },
  };
  const text = stringifyJson(body);
  assert.equal(
    text,
    '{"id":9007199254740993,"amount":-12345678901234567.25,"nested":{"list":[18446744073709551615,"text"],"tiny":1.5e-400}}',
  );
  assert.deepEqual(parseExactJson(text), {
    id: '9007199254740993',
    amount: -12345678901234568,
    // Past a double's range it is read as its text too, not as the 0 JSON.parse makes of it.
    nested: { list: ['18446744073709551615', 'text'], tiny: '1.5e-400' },
  });
  // Anything else that serializes it (a log line) sees the string of its digits.
  assert.equal(JSON.stringify({ id: new JsonNumberText('9007199254740993') }), '{"id":"9007199254740993"}');
});

test('only Integer and Number values that are the text of a JSON number are marked', () => {
  assert.deepEqual(jsonValueOf('Integer', '9007199254740993'), new JsonNumberText('9007199254740993'));
  assert.deepEqual(jsonValueOf('Number', '1234567890123.4567000001'), new JsonNumberText('1234567890123.4567000001'));
  for (const [type, value] of [
    ['String', '9007199254740993'],
    ['Json', '9007199254740993'],
    ['Integer', 7],
    ['Integer', null],
    // Not JSON's spelling of a number: sent as the string it is rather than as broken JSON.
    ['Integer', '0x10'],
    ['Number', '+1'],
    ['Number', '.5'],
    ['Number', '1.'],
    ['Number', 'NaN'],
    ['Integer', '007'],
  ] as const) {
    assert.equal(jsonValueOf(type, value), value, `${type} ${String(value)}`);
  }
});

test('without marked numbers the text is JSON.stringify’s', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      assert.equal(stringifyJson(value), JSON.stringify(value));
    }),
  );
});

/** `value` with each finite number replaced by a JsonNumberText of its JavaScript spelling, which JSON reads as the same number. */
function marked(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0) ? new JsonNumberText(String(value)) : value;
  if (Array.isArray(value)) return value.map(marked);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, marked(item)]));
  return value;
}

test('with marked numbers the text is JSON.stringify’s of the numbers themselves', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      assert.equal(stringifyJson(marked(value)), JSON.stringify(value));
    }),
  );
});

test('JSON.stringify’s rules hold around marked numbers: toJSON, undefined members, undefined in arrays', () => {
  const when = new Date(Date.UTC(2030, 0, 1));
  const value = {
    n: new JsonNumberText('9007199254740993'),
    when,
    gone: undefined,
    fn: () => 1,
    list: [undefined, () => 1, when, new JsonNumberText('1')],
    custom: { toJSON: (key: string) => `key:${key}` },
  };
  assert.equal(
    stringifyJson(value),
    '{"n":9007199254740993,"when":"2030-01-01T00:00:00.000Z","list":[null,null,"2030-01-01T00:00:00.000Z",1],"custom":"key:custom"}',
  );
  assert.equal(stringifyJson(new JsonNumberText('42')), '42');
});

test('a hole in an array is null, as JSON.stringify writes it', () => {
  // biome-ignore lint/suspicious/noSparseArray: the hole is what is tested
  const sparse = [1, , new JsonNumberText('9007199254740993')];
  assert.equal(stringifyJson(sparse), '[1,null,9007199254740993]');
});

test('a system’s wide integer goes back bare; a padded code or a safe number as it came', () => {
  assert.deepEqual(resentInteger('9007199254740993'), new JsonNumberText('9007199254740993'));
  assert.deepEqual(resentInteger('-9007199254740993'), new JsonNumberText('-9007199254740993'));
  for (const value of ['00009007199254740993', '1000000000000000', '42', 'abc', 9007199254740992, null]) {
    assert.equal(resentInteger(value), value, String(value));
  }
});

test('unmarked gives the digits at any depth and leaves a value without marks as it is', () => {
  const plain = { a: [1, 'x'], b: { c: null } };
  assert.equal(unmarked(plain), plain);
  assert.deepEqual(unmarked({ a: [new JsonNumberText('9007199254740993')], b: { c: new JsonNumberText('1') } }), {
    a: ['9007199254740993'],
    b: { c: '1' },
  });
  assert.equal(unmarked(new JsonNumberText('9007199254740993')), '9007199254740993');
});
