/**
 * Just enough lexing of a free query's SQL to find its top level: where string literals, quoted
 * names and comments start and end in each dialect, so that keywords and statement separators are
 * found outside them. This does not decide whether a statement writes — the database does that
 * (see read-only-session.ts); it lets the runner refuse what is plainly not a query, refuse `INTO`,
 * and wrap a statement for LIMIT/OFFSET safely.
 *
 * Where a dialect's lexer and this one could disagree, this one errs towards seeing code: a comment
 * here never ends later than in the database, so text the database runs is never taken for a
 * comment or a literal. Hence the dialect rules below:
 * - PostgreSQL block comments nest (`/* /* *\/ still a comment *\/`);
 * - a PostgreSQL `$tag$` right after a name character is part of the name (`a$b$`), not a quote;
 * - MariaDB/MySQL `--` starts a comment only before whitespace (`2--1` is 2 - -1), and the
 *   executable comments `/*! … *\/` and `/*M! … *\/` hold code, so their text is read as code.
 */
import type { Dialect } from './sql-dialect.js';

/** Characters of unquoted names (and, before a keyword, of numbers: MariaDB reads `1.INTO` as `1. INTO`). */
const NAME_CHARACTER = /[A-Za-z0-9_$\u0080-\uFFFF]/;

function lineEnd(source: string, at: number): number {
  const end = source.indexOf('\n', at);
  return end < 0 ? source.length : end + 1;
}

/** The end of a PostgreSQL block comment starting at `at`, counting nested ones. */
function nestedCommentEnd(source: string, at: number): number {
  let depth = 0;
  let position = at;
  while (position < source.length) {
    if (source.startsWith('/*', position)) {
      depth += 1;
      position += 2;
    } else if (source.startsWith('*/', position)) {
      depth -= 1;
      position += 2;
      if (depth === 0) return position;
    } else {
      position += 1;
    }
  }
  return source.length;
}

/** Where the literal, quoted name or comment starting at `at` ends (exclusive), or `at` when none starts there. */
function skipOpaque(source: string, at: number, dialect: Dialect): number {
  const ch = source[at];
  const next = source[at + 1];
  if (ch === '-' && next === '-') {
    // MariaDB/MySQL: "--" is a comment only when a space or control character (or the end) follows.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: MariaDB's rule is about control characters.
    if (dialect === 'mysql' && at + 2 < source.length && !/[\s\x00-\x1f]/.test(source[at + 2]!)) return at;
    return lineEnd(source, at);
  }
  if (ch === '#' && dialect === 'mysql') return lineEnd(source, at);
  if (ch === '/' && next === '*') {
    // MariaDB runs the text of /*! … */ and /*M! … */: only the opening marker is skipped.
    if (dialect === 'mysql' && /^\/\*M?!/.test(source.slice(at, at + 4))) return at + (source[at + 2] === 'M' ? 4 : 3);
    if (dialect === 'postgres') return nestedCommentEnd(source, at);
    const end = source.indexOf('*/', at + 2);
    return end < 0 ? source.length : end + 2;
  }
  if (ch === '$' && dialect === 'postgres') {
    if (NAME_CHARACTER.test(source[at - 1] ?? '')) return at;
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
  const backslashes =
    dialect === 'mysql' ||
    (dialect === 'postgres' && ch === "'" && /[eE]/.test(source[at - 1] ?? '') && !/[A-Za-z0-9_]/.test(source[at - 2] ?? ''));
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

const VERBS = new Set(['SELECT', 'VALUES', 'TABLE', 'INSERT', 'UPDATE', 'DELETE', 'REPLACE', 'MERGE']);

/**
 * What the statement does: its first keyword, or for a WITH statement the keyword after its common
 * table expressions (SELECT, INSERT, …: the first such word outside their parentheses).
 */
export function mainKeyword(source: string, dialect: Dialect): string {
  const leading = leadingKeyword(source, dialect);
  if (leading !== 'WITH') return leading;
  let depth = 0;
  let withDepth = -1;
  for (const [token] of codeOnly(source, dialect).matchAll(/[()]|[A-Za-z_][A-Za-z0-9_$]*/g)) {
    if (token === '(') depth += 1;
    else if (token === ')') depth -= 1;
    else if (withDepth < 0) withDepth = token.toUpperCase() === 'WITH' ? depth : -1;
    else if (depth === withDepth && VERBS.has(token.toUpperCase())) return token.toUpperCase();
  }
  return leading;
}

/**
 * The statement with every literal, quoted name and comment blanked out (same length, so positions
 * still match): what is left is the code the database will read as keywords and names.
 */
export function codeOnly(source: string, dialect: Dialect): string {
  const code = Array.from({ length: source.length }, () => ' ');
  for (const position of topLevel(source, dialect)) code[position] = source[position]!;
  return code.join('');
}

/**
 * Where `keyword` first stands as a word in the code of the statement (codeOnly), or -1. A word
 * ends where no name character follows; it starts after anything but a letter, `_` or `$`, so a
 * number right before it does not hide it (MariaDB reads `SELECT 1.INTO @x` and `1e1INTO` as
 * INTO). Erring that way refuses the odd name made of digits and the keyword (`x1into`); quoting
 * lets it through.
 */
export function keywordPosition(source: string, dialect: Dialect, keyword: string): number {
  const word = new RegExp(`(?<![A-Za-z_$\\u0080-\\uFFFF])${keyword}(?![A-Za-z0-9_$\\u0080-\\uFFFF])`, 'i');
  return codeOnly(source, dialect).search(word);
}
