import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quoteSpans } from '../../../../connectors/records/exact-json.js';
import { scanJsonText } from '../../../../runtime/request/json-text.js';

const scan = (text: string, maxDepth = 30) => {
  JSON.parse(text); // the scan reads only text the parser accepted
  return scanJsonText(text, maxDepth);
};

describe('scanJsonText', () => {
  it('finds a key given twice, at its pointer, wherever it is', () => {
    assert.deepEqual(scan('{"a":1,"a":2}').duplicateKey, { path: '/a', key: 'a' });
    assert.deepEqual(scan('{"columns":[{"name":"x","value":1,"name":"y"}]}').duplicateKey, { path: '/columns/0/name', key: 'name' });
    // Spelled differently, read the same.
    assert.deepEqual(scan('{"a":1,"\\u0061":2}').duplicateKey, { path: '/a', key: 'a' });
    assert.deepEqual(scan('{"a/b~":{"k":1,"k":1}}').duplicateKey, { path: '/a~1b~0/k', key: 'k' });
  });

  it('leaves keys that repeat only in other objects, in values or in strings', () => {
    for (const text of [
      '{"a":{"a":1},"b":{"a":2}}',
      '[{"a":1},{"a":1}]',
      '{"a":"a","b":"a"}',
      '{"a":"\\"a\\":1,\\"a\\":2","b":["a","a"]}',
      '{"A":1,"a":2}',
    ]) {
      assert.equal(scan(text).duplicateKey, undefined, text);
    }
  });

  it('finds whole numbers past 2^53 with their pointers, and only those', () => {
    const text =
      '{"id":9007199254740993,"n":[1,-9007199254740992,9007199254740991],"d":12345678901234567890.5,"e":1e30,"s":"9007199254740993"}';
    assert.deepEqual(
      scan(text).wideIntegers.map(({ start, end, path }) => [text.slice(start, end), path]),
      [
        ['9007199254740993', '/id'],
        ['-9007199254740992', '/n/1'],
      ],
    );
    assert.deepEqual(
      scan('123456789012345678').wideIntegers.map((wide) => wide.path),
      [''],
    );
    assert.deepEqual(scan('[-9007199254740991, 0, 4.5e-7]').wideIntegers, []);
  });

  it("finds numbers past a double's range, which JSON.parse makes Infinity or 0, and only those", () => {
    const long = `1${'0'.repeat(400)}.5`;
    const text = `{"big":1e400,"tiny":[1,-1E-400],"zero":0e-999,"fine":[1e308,5e-324,1.5e-7,0.0],"long":${long},"s":"1e400"}`;
    assert.deepEqual(
      scan(text).outOfRange.map(({ start, end, path }) => [text.slice(start, end), path]),
      [
        ['1e400', '/big'],
        ['-1E-400', '/tiny/1'],
        [long, '/long'],
      ],
    );
  });

  it('stops at nesting past the limit, at the bracket that opens it', () => {
    assert.equal(scan('[[[1]]]', 2).tooDeepAt, 2);
    assert.equal(scan('[[{"a":[]}]]', 4).tooDeepAt, undefined);
    assert.equal(scan('{"a":"[[[[[["}', 2).tooDeepAt, undefined);
  });

  it('quoteSpans writes each wide integer as the string of its digits', () => {
    const text = '{"id":9007199254740993,"ids":[12345678901234567890,1]}';
    assert.deepEqual(JSON.parse(quoteSpans(text, scan(text).wideIntegers)), { id: '9007199254740993', ids: ['12345678901234567890', 1] });
  });
});
