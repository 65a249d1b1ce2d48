/**
 * SQL LIKE matching without building a RegExp from user data. The pattern is compiled into
 * literal characters, `_` (exactly one character) and `%` (any run, possibly empty), then matched
 * with the classic greedy scan that remembers only the last `%`: O(text × pattern) in the worst
 * case, never exponential, whatever the input.
 *
 * Characters are Unicode code points, so `_` matches one emoji, not half of one. Matching is
 * case-sensitive. An escape character makes the next character literal; a trailing escape
 * character stands for itself.
 */

const ANY_ONE = -1;
const ANY_RUN = -2;

/** A compiled pattern: code points, or ANY_ONE / ANY_RUN. */
export type LikePattern = readonly number[];

export function compileLikePattern(pattern: string, escape: string | null = null): LikePattern {
  const escapeCode = escape === null ? undefined : escape.codePointAt(0);
  const compiled: number[] = [];
  const chars = Array.from(pattern, (ch) => ch.codePointAt(0)!);
  for (let i = 0; i < chars.length; i++) {
    const code = chars[i]!;
    if (code === escapeCode && i + 1 < chars.length) {
      compiled.push(chars[++i]!);
    } else if (code === 0x25 /* % */) {
      // Consecutive '%' mean the same as one; collapsing keeps the scan simple.
      if (compiled[compiled.length - 1] !== ANY_RUN) compiled.push(ANY_RUN);
    } else if (code === 0x5f /* _ */) {
      compiled.push(ANY_ONE);
    } else {
      compiled.push(code);
    }
  }
  return compiled;
}

export function matchLikePattern(text: string, pattern: LikePattern): boolean {
  const chars = Array.from(text, (ch) => ch.codePointAt(0)!);
  let t = 0;
  let p = 0;
  // Where the last '%' was and how much text it has swallowed so far.
  let runAt = -1;
  let runText = 0;
  while (t < chars.length) {
    const want = pattern[p];
    if (want === ANY_RUN) {
      runAt = p++;
      runText = t;
    } else if (want !== undefined && (want === ANY_ONE || want === chars[t])) {
      p++;
      t++;
    } else if (runAt >= 0) {
      // Let the last '%' swallow one more character and retry what follows it.
      p = runAt + 1;
      t = ++runText;
    } else {
      return false;
    }
  }
  while (pattern[p] === ANY_RUN) p++;
  return p === pattern.length;
}

/** Compiles and matches in one step. */
export function likeMatches(text: string, pattern: string, escape: string | null = null): boolean {
  return matchLikePattern(text, compileLikePattern(pattern, escape));
}
