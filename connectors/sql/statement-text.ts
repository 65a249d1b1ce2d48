/**
 * Just enough lexing of a free query's SQL to find its top level: where string literals, quoted
 * names and comments start and end in each dialect, so that the first keyword and statement
 * separators are found outside them. This does not decide whether a statement writes — the
 * database does that (see read-only-session.ts); it lets the runner refuse what is plainly not a
 * query and wrap a statement for LIMIT/OFFSET safely.
 */
import type { Dialect } from './sql-dialect.js';

/** Where the literal, quoted name or comment starting at `at` ends (exclusive), or `at` when none starts there. */
function skipOpaque(source: string, at: number, dialect: Dialect): number {
  const ch = source[at];
  const next = source[at + 1];
  if (ch === '-' && next === '-') {
    const end = source.indexOf('\n', at);
    return end < 0 ? source.length : end + 1;
  }
  if (ch === '#' && dialect === 'mysql') {
    const end = source.indexOf('\n', at);
    return end < 0 ? source.length : end + 1;
  }
  if (ch === '/' && next === '*') {
    const end = source.indexOf('*/', at + 2);
    return end < 0 ? source.length : end + 2;
  }
  if (ch === '$' && dialect === 'postgres') {
    const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(source.slice(at, at + 64));
    if (tag !== null) {
      const end = source.indexOf(tag[0], at + tag[0].length);
      return end < 0 ? source.length : end + tag[0].length;
    }
    return at;
  }
  const close = ch === '[' && dialect === 'sqlite' ? ']' : ch === "'" || ch === '"' || ch === '`' ? ch : null;
  if (close === null) return at;
  // Backslash escapes inside quotes: MariaDB/MySQL always, PostgreSQL in E'…' strings.
  const backslashes = dialect === 'mysql' || (dialect === 'postgres' && ch === "'" && /[eE]/.test(source[at - 1] ?? '') && !/[A-Za-z0-9_]/.test(source[at - 2] ?? ''));
  let position = at + 1;
  while (position < source.length) {
    const current = source[position];
    if (backslashes && current === '\\') position += 2;
    else if (current === close && close !== ']' && source[position + 1] === close) position += 2;
    else if (current === close) return position + 1;
    else position += 1;
  }
  return source.length;
}

/** Positions of top-level characters (outside literals, quoted names and comments), in order. */
function* topLevel(source: string, dialect: Dialect): Generator<number> {
  let position = 0;
  while (position < source.length) {
    const end = skipOpaque(source, position, dialect);
    if (end > position) {
      position = end;
      continue;
    }
    yield position;
    position += 1;
  }
}

/** The first keyword, upper case, after leading whitespace, comments and opening parentheses. */
export function leadingKeyword(source: string, dialect: Dialect): string {
  for (const position of topLevel(source, dialect)) {
    const ch = source[position]!;
    if (/\s|\(/.test(ch)) continue;
    return (/^[A-Za-z_]+/.exec(source.slice(position))?.[0] ?? ch).toUpperCase();
  }
  return '';
}

/**
 * The statement without trailing semicolons, or null when something other than whitespace and
 * comments follows a top-level semicolon (a second statement).
 */
export function singleStatement(source: string, dialect: Dialect): string | null {
  let semicolon = -1;
  for (const position of topLevel(source, dialect)) {
    const ch = source[position]!;
    if (ch === ';') {
      if (semicolon < 0) semicolon = position;
    } else if (semicolon >= 0 && !/\s/.test(ch)) {
      return null;
    }
  }
  return semicolon < 0 ? source : source.slice(0, semicolon);
}
