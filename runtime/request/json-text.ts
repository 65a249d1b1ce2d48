/**
 * What JSON.parse takes from a body without a word, read off the body's text: `JSON.parse` keeps
 * the last of two copies of a key (`{"idcolumns":[…],"idcolumns":[]}` is an insert, not the update
 * the first copy asked for), and rounds a whole number past 2^53 to the nearest double
 * (9007199254740993 becomes …992: another record's key). Both are found here, with the depth of
 * nesting, in one pass over text JSON.parse has already accepted, without recursion.
 *
 * Keys are compared as JSON reads them (`"a"` and `"\u0061"` are one key). What counts as a whole
 * number past 2^53 is exact-json.ts's rule, the one JSON read from systems follows.
 */
import { isWideIntegerToken, numberEnd, outOfDoubleRange, stringEnd } from '../../connectors/records/exact-json.js';
import { escapePointer } from './json-pointer.js';

/** What the scan of a body's text found; it stops at the first nesting too deep or key given twice. */
export interface JsonTextFindings {
  /** Offset of the first object or array opened deeper than the limit. */
  tooDeepAt?: number;
  /** The first key given twice in one object, at its JSON pointer. */
  duplicateKey?: { path: string; key: string };
  /** The whole numbers past ±(2^53 − 1), as [start, end) offsets with their JSON pointers. */
  wideIntegers: Array<{ start: number; end: number; path: string }>;
  /**
   * The numbers past a double's range, which JSON.parse makes Infinity (`1e400`) or 0 (`1e-400`),
   * as [start, end) offsets with their JSON pointers, in text order.
   */
  outOfRange: Array<{ start: number; end: number; path: string }>;
}

/** Where the scan is: an object (with its keys so far and the one being read) or an array. */
type Frame = { keys: Set<string>; key: string | undefined; expectsKey: boolean } | { index: number };

/** Reads `text`, which JSON.parse has accepted, for what JSON.parse would take without a word. */
export function scanJsonText(text: string, maxDepth: number): JsonTextFindings {
  const findings: JsonTextFindings = { wideIntegers: [], outOfRange: [] };
  const frames: Frame[] = [];
  const pointer = (): string => frames.map(pointerStep).join('');
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    const top = frames[frames.length - 1];
    switch (code) {
      case 0x7b: // {
      case 0x5b: // [
        frames.push(code === 0x7b ? { keys: new Set(), key: undefined, expectsKey: true } : { index: 0 });
        if (frames.length > maxDepth) {
          findings.tooDeepAt = at;
          return findings;
        }
        break;
      case 0x7d: // }
      case 0x5d: // ]
        frames.pop();
        break;
      case 0x2c: // ,
        if (top !== undefined && 'index' in top) top.index += 1;
        else if (top !== undefined) top.expectsKey = true;
        break;
      case 0x22: {
        // "
        const end = stringEnd(text, at);
        if (top !== undefined && 'keys' in top && top.expectsKey) {
          const raw = text.slice(at + 1, end);
          const key = raw.includes('\\') ? (JSON.parse(text.slice(at, end + 1)) as string) : raw;
          top.key = key;
          top.expectsKey = false;
          if (top.keys.has(key)) {
            findings.duplicateKey = { path: pointer(), key };
            return findings;
          }
          top.keys.add(key);
        }
        at = end;
        break;
      }
      default:
        if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
          const end = numberEnd(text, at);
          if (isWideIntegerToken(text, at, end)) findings.wideIntegers.push({ start: at, end, path: pointer() });
          else if (outOfDoubleRange(text, at, end)) findings.outOfRange.push({ start: at, end, path: pointer() });
          at = end - 1;
        }
    }
  }
  return findings;
}

function pointerStep(frame: Frame): string {
  if ('index' in frame) return `/${frame.index}`;
  return `/${escapePointer(frame.key ?? '')}`;
}

/** The JSON pointer of the first string of a parsed value — a value or a property name — that `matches`; undefined when none does. */
export function firstTextWhere(value: unknown, matches: (text: string) => boolean, path = ''): string | undefined {
  if (typeof value === 'string') return matches(value) ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = `${path}/${escapePointer(key)}`;
    if (matches(key)) return at;
    const found = firstTextWhere(item, matches, at);
    if (found !== undefined) return found;
  }
  return undefined;
}
