/**
 * Regular expressions that take exponential time on some inputs. JavaScript's engine backtracks:
 * `^(a+)+$` tried on 29 a's and a `!` takes seconds, 36 a's minutes, and nothing else of the
 * process runs meanwhile — a webhook's requestSchema `pattern` is tried on what any caller sends.
 *
 * The shape found is the classic one: a group repeated without bound with an alternative whose
 * every required part is itself repeated a varying number of times (`(a+)+`, `(\s*\w+)*`,
 * `(\w+\s?)*`, `(x|a+)+`, `(\d{1,3},?)+`), so the engine can split a run of characters between
 * the iterations in exponentially many ways. An alternative with a required part of its own (`([a-z]+\.)*`: each iteration ends
 * at a dot) splits one way only and is left alone. Alternatives that overlap ((a|aa)+, (\w|\d)+)
 * are exponential too and not found: it is a guard against the common mistake, not
 * a proof that every pattern is fast.
 */

/** One alternative of a group (or of the whole pattern) so far. */
interface Branch {
  /** Some part repeats a varying number of times. */
  repeats: boolean;
  /** Some required part is not an unbounded repeat: a character, a class, an anchored group. */
  anchored: boolean;
}

interface Frame {
  start: number;
  branch: Branch;
  /** An earlier alternative had a repeat and no anchor. */
  ambiguous: boolean;
  /** Every earlier alternative was anchored. */
  allAnchored: boolean;
  /** A lookahead or lookbehind. */
  zeroWidth: boolean;
}

interface Quantifier {
  min: number;
  /** Infinity for `*`, `+`, `{n,}`. */
  max: number;
  /** Just past it, a lazy `?` included. */
  end: number;
}

/** Repeats of at least this many count as without bound: `{1,1000}` splits as many ways as `+`. */
const manyRepeats = 10;

/** `*`, `+`, `{n,}`, or a maximum of manyRepeats or more: what an outer repeat must be to blow up. */
function unbounded(quantifier: Quantifier | undefined): boolean {
  return quantifier !== undefined && quantifier.max >= manyRepeats && quantifier.max > quantifier.min;
}

/**
 * A part repeated a varying number of times (`+`, `*`, `{1,3}`; not `?`, which takes it once or
 * not at all, nor `{64}`, one length only) can be split between the iterations of a repeat around it.
 */
function splits(quantifier: Quantifier | undefined): boolean {
  return quantifier !== undefined && quantifier.max > quantifier.min && quantifier.max > 1;
}

function frameAt(start: number, zeroWidth: boolean): Frame {
  return { start, branch: { repeats: false, anchored: false }, ambiguous: false, allAnchored: true, zeroWidth };
}

/** The part of `pattern` that repeats such a group (`(a+)+`), or undefined when none does. */
export function exponentialPart(pattern: string): string | undefined {
  const frames: Frame[] = [frameAt(0, false)];
  for (let at = 0; at < pattern.length; ) {
    const character = pattern[at]!;
    if (character === '(') {
      const prefix = /^\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>)/.exec(pattern.slice(at + 1));
      // A lookaround matches no characters: it is never a required part of its alternative.
      const zeroWidth = prefix !== null && /^\?(?:=|!|<=|<!)$/.test(prefix[0]);
      frames.push(frameAt(at, zeroWidth));
      at += 1 + (prefix?.[0].length ?? 0);
      continue;
    }
    if (character === '|') {
      const frame = frames.at(-1)!;
      close(frame);
      frame.branch = { repeats: false, anchored: false };
      at += 1;
      continue;
    }
    let atom: { start: number; ambiguous: boolean; anchored: boolean; end: number };
    if (character === ')') {
      if (frames.length === 1) return undefined; // not a pattern a schema would hold
      const frame = frames.pop()!;
      close(frame);
      atom = { start: frame.start, ambiguous: frame.ambiguous, anchored: frame.allAnchored && !frame.zeroWidth, end: at + 1 };
    } else if (character === '^' || character === '$') {
      at += 1;
      continue;
    } else if (character === '\\') atom = { start: at, ambiguous: false, anchored: true, end: escapeEnd(pattern, at) };
    else if (character === '[') atom = { start: at, ambiguous: false, anchored: true, end: classEnd(pattern, at) };
    else atom = { start: at, ambiguous: false, anchored: true, end: at + 1 };

    const quantifier = quantifierAt(pattern, atom.end);
    const branch = frames.at(-1)!.branch;
    if (unbounded(quantifier) && atom.ambiguous) return pattern.slice(atom.start, quantifier!.end);
    if (splits(quantifier)) {
      for (const frame of frames) frame.branch.repeats = true;
    } else if ((quantifier === undefined || quantifier.min > 0) && atom.anchored) branch.anchored = true;
    // A group repeated within bounds, or not at all, passes its repeats on to the one around it.
    if (!unbounded(quantifier) && atom.ambiguous) for (const frame of frames) frame.branch.repeats = true;
    at = quantifier?.end ?? atom.end;
  }
  return undefined;
}

/** Ends the frame's current alternative. */
function close(frame: Frame): void {
  if (frame.branch.repeats && !frame.branch.anchored) frame.ambiguous = true;
  if (!frame.branch.anchored) frame.allAnchored = false;
}

function quantifierAt(pattern: string, at: number): Quantifier | undefined {
  const character = pattern[at];
  let quantifier: Quantifier | undefined;
  if (character === '*') quantifier = { min: 0, max: Number.POSITIVE_INFINITY, end: at + 1 };
  else if (character === '+') quantifier = { min: 1, max: Number.POSITIVE_INFINITY, end: at + 1 };
  else if (character === '?') quantifier = { min: 0, max: 1, end: at + 1 };
  else if (character === '{') {
    const braces = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
    if (braces === null) return undefined;
    const min = Number(braces[1]);
    const max = braces[2] === undefined ? min : braces[3] === '' ? Number.POSITIVE_INFINITY : Number(braces[3]);
    quantifier = { min, max, end: at + braces[0].length };
  }
  if (quantifier !== undefined && pattern[quantifier.end] === '?') quantifier.end += 1;
  return quantifier;
}

/** Just past the escape at `start`: `\p{L}`, `\u0061`, `\u{1F600}`, `\x61`, `\cJ` and `\k<name>` are one atom each. */
function escapeEnd(pattern: string, start: number): number {
  const rest = pattern.slice(start);
  const long = /^\\(?:[pP]\{[^}]*\}|u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|c[A-Za-z]|k<[^>]*>)/.exec(rest);
  return Math.min(start + (long?.[0].length ?? 2), pattern.length);
}

/** Just past the character class that opens at `start` (JavaScript's: `[]` matches nothing, `[^]` anything). */
function classEnd(pattern: string, start: number): number {
  let at = start + 1;
  if (pattern[at] === '^') at += 1;
  for (; at < pattern.length; at += 1) {
    if (pattern[at] === '\\') at += 1;
    else if (pattern[at] === ']') return at + 1;
  }
  return pattern.length;
}
