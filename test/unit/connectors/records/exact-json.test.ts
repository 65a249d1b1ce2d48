import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inexactIntegerSpans, parseExactJson, parseMarkedJson } from '../../../../connectors/records/exact-json.js';
import { JsonNumberText } from '../../../../connectors/records/json-number-text.js';

test('whole numbers a double does not hold arrive as the text of their digits, wherever they sit', () => {
  assert.deepEqual(
    parseExactJson('{"id":9007199254740993,"list":[-9007199254740993,1234567890123456789],"n":{"m":18446744073709551615}}'),
    {
      id: '9007199254740993',
      list: ['-9007199254740993', '1234567890123456789'],
      n: { m: '18446744073709551615' },
    },
  );
  assert.equal(parseExactJson('9007199254740993'), '9007199254740993');
  // Past a double's range JSON.parse answers Infinity.
  const huge = `1${'0'.repeat(400)}`;
  assert.deepEqual(parseExactJson(`[${huge}]`), [huge]);
});

test("numbers past a double's range arrive as their text, not as the Infinity or 0 JSON.parse makes of them", () => {
  assert.deepEqual(parseExactJson('{"a":1e400,"b":[-1E+400,1.5e-400],"c":"1e400","d":1e300,"e":0e-400}'), {
    a: '1e400',
    b: ['-1E+400', '1.5e-400'],
    c: '1e400',
    d: 1e300,
    e: 0,
  });
  const marked = parseMarkedJson('{"a":1e400}') as { a: JsonNumberText };
  assert.deepEqual(marked.a, new JsonNumberText('1e400'));
});

test('every other number is what JSON.parse makes of it', () => {
  for (const text of [
    '[9007199254740991,-9007199254740991]',
    // Doubles exactly, though past 2^53: written back, they keep their type.
    '[9007199254740992,100000000000000000000,18446744073709551616]',
    '[1.5,1e20,12345678901234567890.5,1234567890123456789e0,0.12345678901234567890]',
    '{"a":1,"b":[true,null,"x"]}',
  ]) {
    assert.deepEqual(parseExactJson(text), JSON.parse(text), text);
  }
});

test('digits inside strings and keys are left as they are, escaped quotes included', () => {
  const text = '{"9007199254740993":"9007199254740993 \\" 9007199254740993","card":"4111111111111111","n":9007199254740993}';
  assert.deepEqual(parseExactJson(text), {
    '9007199254740993': '9007199254740993 " 9007199254740993',
    card: '4111111111111111',
    n: '9007199254740993',
  });
  assert.deepEqual(inexactIntegerSpans(text), [{ start: text.lastIndexOf('9007199254740993'), end: text.length - 1 }]);
});

test('text that is not JSON fails as JSON.parse fails', () => {
  assert.throws(() => parseExactJson('{"id":9007199254740993'), SyntaxError);
  assert.throws(() => parseExactJson(''), SyntaxError);
});

test('parseMarkedJson marks the numbers it keeps exact and leaves strings of digits strings', () => {
  const text = '{"id":9007199254740993,"code":"9007199254740995","list":[1,-9007199254740997],"safe":9007199254740992}';
  assert.deepEqual(parseMarkedJson(text), {
    id: new JsonNumberText('9007199254740993'),
    code: '9007199254740995',
    list: [1, new JsonNumberText('-9007199254740997')],
    safe: 9007199254740992,
  });
  assert.deepEqual(parseMarkedJson('{"a":1.5,"b":"x"}'), { a: 1.5, b: 'x' });
});

test('parseMarkedJson picks a mark the text does not escape, and reads strings holding control characters as they are', () => {
  const text = '{"nul":"a\\u0000b","one":"\\u0001","id":9007199254740993}';
  assert.deepEqual(parseMarkedJson(text), { nul: 'a\u0000b', one: '\u0001', id: new JsonNumberText('9007199254740993') });
  // Every candidate escaped (no text does this): the numbers are the strings parseExactJson gives, never misread.
  const marks = ['00', '01', '02', '03', '04', '05', '06', '07', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19'];
  const crowded = `{"s":"${marks.map((mark) => `\\u00${mark}`).join('')}","id":9007199254740993}`;
  assert.deepEqual(parseMarkedJson(crowded), {
    s: marks.map((mark) => String.fromCharCode(Number.parseInt(mark, 16))).join(''),
    id: '9007199254740993',
  });
});
