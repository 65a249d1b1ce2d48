/**
 * LIKE and the OData string predicates (`contains`, `startswith`, `endswith`) with the JS
 * evaluator's semantics: case-sensitive, `%` any run of characters, `_` exactly one character
 * (code point), the pattern's own escape character honoured.
 *
 * The pattern is parsed here into literal text and wildcards, then written again in the target's
 * syntax and bound as a value:
 * - PostgreSQL: `LIKE ? ESCAPE '!'` under the "C" collation (LIKE is case-sensitive there).
 * - MariaDB/MySQL: `LIKE ? ESCAPE '!'` under `utf8mb4_bin` (character-wise and case-sensitive;
 *   `LIKE BINARY` would make `_` match one byte, not one character).
 * - SQLite: `GLOB ?`. SQLite's LIKE folds ASCII case, and `PRAGMA case_sensitive_like` is deprecated
 *   and may be compiled out; GLOB is case-sensitive and matches characters, and every LIKE
 *   pattern has an exact GLOB spelling (`*`, `?` and `[` are written as `[*]`, `[?]`, `[[]`).
 *   GLOB reads a pattern only up to a NUL character and refuses one over 50,000 bytes; such
 *   patterns are matched without GLOB when they are a plain text, prefix, suffix or substring
 *   test. GLOB also reads a value only up to a NUL: text holding U+0000 is matched up to it.
 */
import { unsupported } from './filter-operand.js';
import { sql, value, type SqlFragment } from './sql-fragment.js';
import type { Engine } from './engines/index.js';

export type LikeToken = { kind: 'text'; text: string } | { kind: 'one' } | { kind: 'run' };

/** Reads a LIKE pattern as the JS evaluator does (definitions/expression/like-pattern.ts). */
export function parseLikePattern(pattern: string, escape: string | null): LikeToken[] {
  const chars = Array.from(pattern);
  const escapeChar = escape === null ? undefined : Array.from(escape)[0];
  const tokens: LikeToken[] = [];
  const pushText = (ch: string): void => {
    const last = tokens[tokens.length - 1];
    if (last?.kind === 'text') last.text += ch;
    else tokens.push({ kind: 'text', text: ch });
  };
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === escapeChar && i + 1 < chars.length) pushText(chars[++i]!);
    else if (ch === '%') {
      if (tokens[tokens.length - 1]?.kind !== 'run') tokens.push({ kind: 'run' });
    } else if (ch === '_') tokens.push({ kind: 'one' });
    else pushText(ch);
  }
  return tokens;
}

/** The tokens of `contains`, `startswith` and `endswith` with a literal argument. */
export function predicateTokens(name: 'contains' | 'startswith' | 'endswith', part: string): LikeToken[] {
  const literal: LikeToken[] = part === '' ? [] : [{ kind: 'text', text: part }];
  switch (name) {
    case 'contains':
      return [{ kind: 'run' }, ...literal, { kind: 'run' }];
    case 'startswith':
      return [...literal, { kind: 'run' }];
    case 'endswith':
      return [{ kind: 'run' }, ...literal];
  }
}

function writeGlob(tokens: readonly LikeToken[]): string {
  return tokens
    .map((token) => {
      if (token.kind === 'one') return '?';
      if (token.kind === 'run') return '*';
      return Array.from(token.text, (ch) => (ch === '*' || ch === '?' || ch === '[' ? `[${ch}]` : ch)).join('');
    })
    .join('');
}

function writeLike(tokens: readonly LikeToken[]): string {
  return tokens
    .map((token) => {
      if (token.kind === 'one') return '_';
      if (token.kind === 'run') return '%';
      return Array.from(token.text, (ch) => (ch === '%' || ch === '_' || ch === '!' ? `!${ch}` : ch)).join('');
    })
    .join('');
}

/** SQLite refuses GLOB patterns longer than this (SQLITE_MAX_LIKE_PATTERN_LENGTH). */
const SQLITE_PATTERN_LIMIT = 50_000;

/**
 * SQLite, for patterns GLOB cannot take (longer than its limit, or holding NUL, where GLOB stops
 * reading): the common shapes as equality, prefix, suffix and substring tests, which compare the
 * whole text; any other shape is refused.
 */
function sqliteWithoutGlob(textExpression: SqlFragment, tokens: readonly LikeToken[]): SqlFragment {
  const shape = tokens.map((token) => (token.kind === 'text' ? 't' : token.kind === 'run' ? '%' : '_')).join('');
  const literal = tokens.find((token) => token.kind === 'text')?.text ?? '';
  const length = Array.from(literal).length;
  switch (shape) {
    case 't':
      return sql`((${textExpression} COLLATE BINARY) = ${value(literal)})`;
    case 't%':
      return sql`((substr(${textExpression}, 1, ${value(length)}) COLLATE BINARY) = ${value(literal)})`;
    case '%t':
      return sql`((substr(${textExpression}, ${value(-length)}) COLLATE BINARY) = ${value(literal)})`;
    case '%t%':
      return sql`(instr(${textExpression}, ${value(literal)}) > 0)`;
    default:
      throw unsupported('a LIKE pattern of this shape that is longer than 50,000 bytes or contains NUL (U+0000) on SQLite');
  }
}

/** `text` matches the pattern; NULL text gives unknown, as in the JS evaluator. */
export function likePredicate(engine: Engine, textExpression: SqlFragment, tokens: readonly LikeToken[]): SqlFragment {
  switch (engine.name) {
    case 'sqlite': {
      const glob = writeGlob(tokens);
      if (glob.includes('\u0000') || Buffer.byteLength(glob) > SQLITE_PATTERN_LIMIT) return sqliteWithoutGlob(textExpression, tokens);
      return sql`(${textExpression} GLOB ${value(glob)})`;
    }
    case 'postgres':
      return sql`(CAST(${textExpression} AS TEXT) COLLATE "C" LIKE ${value(writeLike(tokens))} ESCAPE '!')`;
    case 'mysql':
      return sql`(CONVERT(${textExpression} USING utf8mb4) COLLATE utf8mb4_bin LIKE ${value(writeLike(tokens))} ESCAPE '!')`;
  }
}
