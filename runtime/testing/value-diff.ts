/**
 * Expected against actual as a diff a person reads in a terminal or a CI report: both values
 * written out as indented JSON, lines only in the expectation marked `-`, lines only in the
 * actual value `+`, the rest shown once for context. The actual value's fields are put in the
 * expectation's order first, so a field order that does not matter does not show as a change.
 */
import { showValue } from './compare-expected.js';

export interface DiffLine {
  /** ' ' both, '-' expected only, '+' actual only. */
  mark: ' ' | '-' | '+';
  text: string;
}

/** Beyond this many lines per side the diff is not computed line by line (it would cost n·m). */
const maxLines = 400;

export function valueDiff(expected: unknown, actual: unknown): DiffLine[] {
  if (!isCollection(expected) || !isCollection(actual)) {
    return [
      { mark: '-', text: showValue(expected, 2000) },
      { mark: '+', text: showValue(actual, 2000) },
    ];
  }
  const before = pretty(expected);
  const after = pretty(alignKeys(actual, expected));
  if (before.length > maxLines || after.length > maxLines) {
    return [...before.map((text) => ({ mark: '-' as const, text })), ...after.map((text) => ({ mark: '+' as const, text }))];
  }
  return lineDiff(before, after);
}

/** The diff as text lines, `- ` / `+ ` / `  ` in front. */
export function formatDiff(lines: readonly DiffLine[]): string[] {
  return lines.map((line) => `${line.mark} ${line.text}`);
}

function isCollection(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !(value instanceof Date);
}

function pretty(value: unknown): string[] {
  return JSON.stringify(value, (_key, v: unknown) => (Buffer.isBuffer(v) ? `<${v.length} bytes>` : v), 2).split('\n');
}

/** `value` with the fields `like` has in `like`'s order, then its others. */
function alignKeys(value: unknown, like: unknown): unknown {
  if (Array.isArray(value)) return value.map((item, i) => alignKeys(item, Array.isArray(like) ? like[i] : undefined));
  if (!isCollection(value) || value instanceof Date || Buffer.isBuffer(value)) return value;
  const record = value as Record<string, unknown>;
  const template = isCollection(like) && !Array.isArray(like) ? (like as Record<string, unknown>) : {};
  const names = [
    ...Object.keys(template).filter((name) => Object.hasOwn(record, name)),
    ...Object.keys(record).filter((name) => !Object.hasOwn(template, name)),
  ];
  return Object.fromEntries(names.map((name) => [name, alignKeys(record[name], template[name])]));
}

/**
 * A longest-common-subsequence diff of two lists of lines. Lines that differ only in JSON's
 * trailing comma (the last field moved) count as the same, shown as the actual value has it.
 */
function lineDiff(before: readonly string[], after: readonly string[]): DiffLine[] {
  const same = (a: string, b: string) => a === b || a.replace(/,$/, '') === b.replace(/,$/, '');
  const n = before.length;
  const m = after.length;
  // common[i][j]: length of the LCS of before[i..] and after[j..].
  const common = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      common[i]![j] = same(before[i]!, after[j]!) ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (same(before[i]!, after[j]!)) {
      out.push({ mark: ' ', text: after[j]! });
      i++;
      j++;
    } else if (common[i + 1]![j]! >= common[i]![j + 1]!) {
      out.push({ mark: '-', text: before[i++]! });
    } else {
      out.push({ mark: '+', text: after[j++]! });
    }
  }
  while (i < n) out.push({ mark: '-', text: before[i++]! });
  while (j < m) out.push({ mark: '+', text: after[j++]! });
  return out;
}
