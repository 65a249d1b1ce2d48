/**
 * Where each row read for a rewrite came from, so that the rewrite copies a row it does not change
 * as it was — its quoting, spacing, number spellings and bytes — instead of writing it anew: the
 * range of the file's bytes it was read from (a CSV record or an NDJSON line, with the blank lines
 * before it, ending after its line end), or its text (an element of a JSON array, which is parsed
 * whole from text). Kept beside the rows by their identity, so that the readers' batches stay plain
 * rows; recorded only when a writer asks for it (OpenSettings.origins).
 */
export type RowOrigin = { start: number; end: number } | { text: string };

export type RowOrigins = WeakMap<object, RowOrigin>;

/**
 * The text of each element of a JSON array, in order, from the text of the array (already known
 * to be valid JSON): from the first character of an element to its last, outside strings counting
 * brackets and braces to find the commas at the top level.
 */
export function arrayElementTexts(text: string): string[] {
  const elements: string[] = [];
  let depth = 0;
  let start = -1;
  let last = -1;
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    if (char === '"') {
      // A string: to its closing quote, a backslash taking the character after it along.
      if (depth === 1 && start === -1) start = at;
      for (at += 1; text[at] !== '"'; at++) if (text[at] === '\\') at += 1;
      last = at;
      continue;
    }
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r') continue;
    if (char === '[' || char === '{') {
      depth += 1;
      if (depth === 1) continue;
    } else if (char === ']' || char === '}') {
      depth -= 1;
    }
    if (depth === 0 || (depth === 1 && char === ',')) {
      if (start !== -1) elements.push(text.slice(start, last + 1));
      start = -1;
      continue;
    }
    if (depth >= 1 && start === -1) start = at;
    last = at;
  }
  return elements;
}
