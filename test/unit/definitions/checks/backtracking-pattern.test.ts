import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exponentialPart } from '../../../../definitions/checks/backtracking-pattern.js';

describe('exponentialPart', () => {
  it('finds a group repeated without bound whose alternative only repeats', () => {
    for (const [pattern, part] of [
      ['^(a+)+$', '(a+)+'],
      ['^(a*)*$', '(a*)*'],
      ['^(\\s*\\w+)*$', '(\\s*\\w+)*'],
      ['^(\\w+\\s?)*$', '(\\w+\\s?)*'],
      ['^(x|a+)+$', '(x|a+)+'],
      ['^(?:[a-z]+){1,100}$', '(?:[a-z]+){1,100}'],
      ['^((ab)+)+$', '((ab)+)+'],
      ['^(a+?)+?$', '(a+?)+?'],
      ['^((a+)?)+$', '((a+)?)+'],
    ]) {
      assert.equal(exponentialPart(pattern!), part, pattern);
    }
  });

  it('leaves patterns that split one way, and ones that do not repeat a repeat', () => {
    for (const pattern of [
      '^[a-z]+$',
      '^([a-z]+\\.)*[a-z]+$',
      '^(\\d+,)*\\d+$',
      '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$',
      '^(ab|cd)+$',
      '^\\(a+\\)+$',
      '^[(a+)]+$',
      '^(?:\\+?1)?[0-9]{10}$',
      '^(a|b)?c*$',
      '',
      '(unclosed',
      'closed)',
    ]) {
      assert.equal(exponentialPart(pattern), undefined, pattern);
    }
  });
});
