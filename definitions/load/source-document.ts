/**
 * One YAML document of a definition file, with everything needed to point back into the file:
 * the parsed node tree (positions), the line counter and the file text.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import type { Problem } from '../problem.js';

export interface SourceDocument {
  /** The file as shown in problems (relative to the working directory when inside it). */
  readonly file: string;
  readonly absolutePath: string;
  /** The definitions directory this file was found under; `${file:..}` may not leave it. */
  readonly root: string;
  /** 0-based index of the document within its file. */
  readonly index: number;
  readonly text: string;
  readonly lineCounter: LineCounter;
  readonly document: Document.Parsed;
  /** Scalars whose value came from `${env:..}` or `${file:..}`: secrets are expected there. */
  readonly substituted: WeakSet<Node>;
  /**
   * Offsets (start, end) of the scalars a substitution failed in (an unset variable): they keep
   * the text as written, and what is checked there is not what would run.
   */
  readonly unresolved: Array<readonly [number, number]>;
  /** Plain value after substitution; set once the document parsed cleanly. */
  value?: unknown;
  kind?: string;
  id?: string;
}

export type PathSegment = string | number;

interface Located {
  node: Node | null;
  keyNode: Node | null;
}

/** Walks the YAML tree along a JSON path; stops at the deepest node that exists. */
export function locate(source: SourceDocument, path: readonly PathSegment[]): Located & { complete: boolean } {
  let node: Node | null = source.document.contents as Node | null;
  let keyNode: Node | null = null;
  for (const segment of path) {
    if (node && isAlias(node)) node = (node.resolve(source.document) as Node | undefined) ?? null;
    if (node && isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
      if (!pair) return { node, keyNode, complete: false };
      keyNode = pair.key as Node;
      node = (pair.value as Node | null) ?? keyNode;
    } else if (node && isSeq(node)) {
      const item = node.items[Number(segment)] as Node | undefined;
      if (item === undefined) return { node, keyNode, complete: false };
      keyNode = null;
      node = item;
    } else {
      return { node, keyNode, complete: false };
    }
  }
  return { node, keyNode, complete: true };
}

export interface Position {
  line: number;
  column: number;
}

export function positionAtOffset(source: SourceDocument, offset: number): Position {
  const { line, col } = source.lineCounter.linePos(Math.max(0, Math.min(offset, source.text.length)));
  return { line, column: col };
}

function documentStart(source: SourceDocument): number {
  const contents = source.document.contents as Node | null;
  return contents?.range?.[0] ?? source.document.range[0];
}

/**
 * Position of the value at `path` (or of its key with `key: true`). With `offsetInValue`, the
 * position of that character inside a string value — so an expression error lands on the exact
 * column in the YAML file, also for quoted and block scalars.
 */
export function positionOf(
  source: SourceDocument,
  path: readonly PathSegment[],
  options: { key?: boolean; offsetInValue?: number } = {},
): Position {
  const found = locate(source, path);
  if (options.key && found.complete && found.keyNode?.range) return positionAtOffset(source, found.keyNode.range[0]);
  const node = found.node;
  if (!node?.range) return positionAtOffset(source, documentStart(source));
  if (found.complete && options.offsetInValue !== undefined && isScalar(node) && typeof node.value === 'string') {
    return positionAtOffset(source, scalarCharacterOffset(source, node.range, node.value, options.offsetInValue));
  }
  return positionAtOffset(source, node.range[0]);
}

/**
 * Maps an offset inside a scalar's value to a file offset. Plain and single-line quoted scalars
 * hold the value verbatim after their opening quote; literal block scalars hold it line by line
 * after their indentation. Where the text differs from the value (escapes, folded lines), the
 * characters at the offset are looked up in the text instead; the scalar's start is the last resort.
 */
export function scalarCharacterOffset(
  source: SourceDocument,
  range: readonly [number, number, number],
  value: string,
  offset: number,
): number {
  const raw = source.text.slice(range[0], range[1]);
  const at = raw.indexOf(value);
  if (at >= 0) return range[0] + at + offset;
  // Block scalars: walk the value's lines and find each in the raw text in order.
  const lines = value.slice(0, offset).split('\n');
  let cursor = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fullLine = value.split('\n')[i] ?? '';
    const found = raw.indexOf(fullLine, cursor);
    if (found < 0) break;
    if (i === lines.length - 1) return range[0] + found + line.length;
    cursor = found + fullLine.length;
  }
  const found = offsetByToken(raw, value, offset);
  return found === undefined ? range[0] : range[0] + found;
}

/** A run of characters that folding and escaping leave alone. */
const tokenAfter = /^[^\s"'\\]+/;
const tokenBefore = /[^\s"'\\]+(?=\s*$)/;

/**
 * The raw-text offset of the value's character at `offset`, found by its token: the n-th
 * occurrence in the value is the n-th in the text, after the quote or block header. At the end
 * of the value (a missing ')'), the position just after the last token.
 */
function offsetByToken(raw: string, value: string, offset: number): number | undefined {
  const body = /^[|>][^\n]*\n|^["']/.exec(raw)?.[0].length ?? 0;
  const nth = (text: string, token: string, n: number, from: number): number => {
    let index = from - 1;
    for (let i = 0; i <= n; i++) {
      index = text.indexOf(token, index + 1);
      if (index < 0) return -1;
    }
    return index;
  };
  const count = (text: string, token: string): number => text.split(token).length - 1;
  const after = tokenAfter.exec(value.slice(offset))?.[0];
  if (after) {
    const index = nth(raw, after, count(value.slice(0, offset), after), body);
    return index < 0 ? undefined : index;
  }
  const before = tokenBefore.exec(value.slice(0, offset));
  if (!before) return undefined;
  const index = nth(raw, before[0], count(value.slice(0, before.index), before[0]), body);
  return index < 0 ? undefined : index + before[0].length + (offset - before.index - before[0].length);
}

/** A problem at `path` of a document, carrying its kind and id. */
export function problemAt(
  source: SourceDocument,
  path: readonly PathSegment[],
  code: string,
  message: string,
  options: { key?: boolean; offsetInValue?: number } = {},
): Problem {
  const { line, column } = positionOf(source, path, options);
  return { file: source.file, line, column, kind: source.kind, id: source.id, code, message };
}
