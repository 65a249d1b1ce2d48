/** Calls to functions that do not exist, found in a mapping's syntax tree before anything runs. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import jsonata from 'jsonata';
import { JSONATA_FUNCTIONS, unknownFunctionCalls } from '../../../../definitions/mapping/unknown-functions.js';

const unknown = (text: string) => unknownFunctionCalls(jsonata(text).ast()).map(({ name, start, guess }) => ({ name, start, guess }));

test('every name the check takes for a JSONata function is one in the installed JSONata', async () => {
  for (const name of JSONATA_FUNCTIONS) {
    // $type of a function value is "function": a name JSONata lacks would be undefined.
    const type = await jsonata(`$type($${name})`).evaluate({});
    assert.equal(type, 'function', `$${name}`);
  }
});

test('a misspelt function is named at its $, with the closest name', () => {
  assert.deepEqual(unknown('{"Email": $lowercasee(email)}'), [{ name: 'lowercasee', start: 10, guess: 'lowercase' }]);
  assert.deepEqual(unknown('$frobnicate(x)'), [{ name: 'frobnicate', start: 0, guess: undefined }]);
});

test('calls anywhere are found: predicates, conditions, sorts, partial application, arguments', () => {
  const text = 'items[$isBig(price)].{"n": flag ? $yes() : $no(), "s": $substringg(?, 0, 1)} ^($rank(a)) ~> $sum($weigh(b))';
  assert.deepEqual(
    unknown(text).map((call) => call.name),
    ['isBig', 'yes', 'no', 'substringg', 'rank', 'weigh'],
  );
});

test("the mapping's own functions and variables are known: bindings, lambda parameters, @ and # variables", () => {
  assert.deepEqual(unknown('($f := function($x) { $x }; $g := $uppercase; $f($g(name)))'), []);
  assert.deepEqual(unknown('$map(items, function($v, $i, $apply) { $apply($v) })'), []);
  assert.deepEqual(unknown('items@$it#$pos.$it($pos)'), []);
  assert.deepEqual(unknown('$now() & $millis() & $substring(name, 0, 1)'), []);
  // A name defined in one place counts everywhere: the check never reports a call that could work.
  assert.deepEqual(unknown('[($h := $trim; 1), $h(" a ")]'), []);
});

test('the closest name may be one the mapping defines', () => {
  assert.deepEqual(
    unknown('($initials := function($t) { $t }; $initial(name))').map((call) => call.guess),
    ['initials'],
  );
});
