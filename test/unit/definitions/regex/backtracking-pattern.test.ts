import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exponentialPart } from '../../../../definitions/regex/backtracking-pattern.js';

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
      // Escapes of several characters are one atom, not required characters of their own.
      ['^(\\p{L}+\\s?)+$', '(\\p{L}+\\s?)+'],
      ['^(\\u0061+)+$', '(\\u0061+)+'],
      ['^(\\x61+)+$', '(\\x61+)+'],
      // An inner part repeated a bounded but varying number of times splits as well.
      ['^(\\d{1,3},?)+$', '(\\d{1,3},?)+'],
      ['^(a{1,9})+$', '(a{1,9})+'],
      // A lookahead matches nothing, so it is no required part.
      ['^((?=\\w)\\w*)*$', '((?=\\w)\\w*)*'],
      // JavaScript's [^] is any character, and does not swallow the rest of the pattern.
      ['^([^]+)+$', '([^]+)+'],
      // A well-known URL pattern with this flaw.
      ['^(https?:\\/\\/)?([\\da-z\\.-]+)\\.([a-z\\.]{2,6})([\\/\\w \\.-]*)*\\/?$', '([\\/\\w \\.-]*)*'],
    ]) {
      assert.equal(exponentialPart(pattern!), part, pattern);
    }
  });

  it('leaves patterns that split one way, and ones that do not repeat a repeat', () => {
    // Not found, though exponential too: alternatives that overlap ((a|aa)+, (\w|\d)+). A guard
    // against the common shape, not a proof.
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
      // Fixed width repeats split one way.
      '^([0-9a-f]{64})+$',
      '^(\\d{10})*$',
      // Common shapes: e-mail, UUID, semantic version, thousands, ISO date.
      '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$',
      '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
      '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$',
      '^\\d{1,3}(,\\d{3})*$',
      '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?)?$',
      '^\\p{Lu}\\p{Ll}+( \\p{Lu}\\p{Ll}+)*$',
      '',
      '(unclosed',
      'closed)',
    ]) {
      assert.equal(exponentialPart(pattern), undefined, pattern);
    }
  });
});
