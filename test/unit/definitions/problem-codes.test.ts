/**
 * Every problem code the invalid fixtures produce has a one-line description, the rule text a
 * SARIF report shows beside each alert; an unknown code still gets one made from its name.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isDescribedCode, problemRule } from '../../../definitions/problem-codes.js';

const fixtures = fileURLToPath(new URL('../../fixtures/invalid/', import.meta.url));

test('every code of the invalid fixtures is described', () => {
  const codes = new Set(
    readdirSync(fixtures).flatMap((name) =>
      (JSON.parse(readFileSync(join(fixtures, name, 'expected.json'), 'utf8')) as Array<{ code: string }>).map((p) => p.code),
    ),
  );
  assert.ok(codes.size >= 30, `only ${codes.size} codes`);
  const missing = [...codes].filter((code) => !isDescribedCode(code));
  assert.deepEqual(missing, [], 'add these to definitions/problem-codes.ts');
  for (const code of codes) assert.doesNotMatch(problemRule(code), /\n|^Definition problem/);
});

test('an unknown code is described by its name', () => {
  assert.equal(problemRule('brand-new-check'), "Definition problem 'brand-new-check'");
});
