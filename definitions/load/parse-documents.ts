/**
 * Reads one definition file and splits it into YAML documents with positions. Everything a
 * hostile or broken file can do — not YAML, duplicate keys, alias bombs, sheer size, binary
 * content — becomes a problem with a file, line and column, never an exception.
 */
import { isUtf8 } from 'node:buffer';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import {
  isAlias,
  isCollection,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  visit,
  type Alias,
  type Document,
  type EmptyStream,
  type Node,
} from 'yaml';
import type { Problem } from '../problem.js';
import type { DefinitionFile } from './find-files.js';
import { positionAtOffset, type SourceDocument } from './source-document.js';
import { firstLine, yamlProblems } from './yaml-errors.js';

/** Largest definition file read; larger ones are refused before parsing. */
export const maxFileBytes = 4 * 1024 * 1024;
/**
 * Alias expansions allowed per document, counted as the yaml library counts them (an alias of a
 * node that itself holds aliases weighs as much as their expansions): enough for shared blocks,
 * far too few for a billion-laughs bomb.
 */
export const maxAliasCount = 100;

export interface ParsedFile {
  documents: SourceDocument[];
  problems: Problem[];
  /** Documents whose YAML is broken: reported in `problems`, kept so that their kind and id are known. */
  broken: SourceDocument[];
  /** The file text, for the snapshot digest. */
  text: string;
}

export async function parseDefinitionFile(file: DefinitionFile): Promise<ParsedFile> {
  const at = (line: number, column: number, code: string, message: string): ParsedFile => ({
    documents: [],
    problems: [{ file: file.displayPath, line, column, code, message }],
    broken: [],
    text: '',
  });
  if (file.refused) return at(1, 1, file.refused.code, file.refused.message);
  // The path find-files.ts checked, opened without following a link: a file swapped for a link
  // since then is not read through it.
  const handle = await open(file.readPath, constants.O_RDONLY | constants.O_NOFOLLOW).catch((error: NodeJS.ErrnoException) => error);
  if (!('fd' in handle)) {
    if (handle.code === 'ELOOP') return at(1, 1, 'link-outside', 'this file became a symbolic link while loading; it is not read');
    if (handle.code === 'EACCES' || handle.code === 'EPERM')
      return at(1, 1, 'file-unreadable', 'permission denied: make the file readable by the user that runs syncline');
    return at(1, 1, 'file-unreadable', handle.code === 'ENOENT' ? 'file disappeared while loading' : `cannot be read (${handle.code})`);
  }
  let bytes: Buffer;
  try {
    const info = await handle.stat();
    if (info.size > maxFileBytes) {
      const mb = (info.size / (1024 * 1024)).toFixed(1);
      return at(
        1,
        1,
        'file-too-large',
        `file is ${mb} MiB; definition files may be at most ${maxFileBytes / (1024 * 1024)} MiB — split it into several files`,
      );
    }
    bytes = await handle.readFile();
  } finally {
    await handle.close();
  }
  if (bytes.includes(0)) return at(1, 1, 'not-yaml', 'file contains NUL bytes: it is not a YAML text file');
  const text = bytes.toString('utf8');
  // Decoding replaces bytes that are not UTF-8 with U+FFFD, which a mapping would then write to
  // every record: a file saved in Latin-1 or Windows-1252 is refused at its first such byte.
  if (!isUtf8(bytes)) {
    const { line, column } = firstUndecodable(text, bytes);
    return at(line, column, 'not-utf8', 'the file is not UTF-8 here (saved as Latin-1 or Windows-1252?); save it as UTF-8');
  }
  // YAML ends a line at CR too, but a comment runs to the next LF: a file of lone CRs that opens
  // with a comment was one long comment, loaded as no definitions at all.
  const loneReturn = /\r(?!\n)/.exec(text);
  if (loneReturn !== null) {
    const { line, column } = lineAndColumn(text, loneReturn.index);
    return at(
      line,
      column,
      'yaml-syntax',
      'a line ends with a carriage return alone (classic Mac line endings); save the file with LF or CRLF line endings',
    );
  }
  return parseDefinitionText(file, text);
}

/** Line and column of the first U+FFFD in `text` that decoding made, not one the file holds. */
function firstUndecodable(text: string, bytes: Buffer): { line: number; column: number } {
  for (let index = text.indexOf('\uFFFD'); index !== -1; index = text.indexOf('\uFFFD', index + 1)) {
    const offset = Buffer.byteLength(text.slice(0, index));
    if (bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd) continue;
    return lineAndColumn(text, index);
  }
  return { line: 1, column: 1 };
}

/** Line and column (from 1, lines ended by LF) of `text[index]`, before the YAML library has counted lines. */
function lineAndColumn(text: string, index: number): { line: number; column: number } {
  const before = text.slice(0, index);
  return { line: before.split('\n').length, column: index - (before.lastIndexOf('\n') + 1) + 1 };
}

export function parseDefinitionText(file: DefinitionFile, text: string): ParsedFile {
  const lineCounter = new LineCounter();
  let parsed: Document.Parsed[] | EmptyStream;
  try {
    parsed = parseAllDocuments(text, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true, merge: true });
  } catch (error) {
    // The library reports errors as data; this only guards against a defect in it, so that one
    // file cannot crash a reload.
    const message = `YAML: cannot parse this file: ${firstLine(String((error as Error)?.message ?? error))}`;
    return { documents: [], problems: [{ file: file.displayPath, line: 1, column: 1, code: 'yaml-syntax', message }], broken: [], text };
  }
  const docs: Document.Parsed[] = Array.isArray(parsed) ? parsed : [];
  const problems: Problem[] = [];
  const documents: SourceDocument[] = [];
  const broken: SourceDocument[] = [];
  docs.forEach((document, index) => {
    const source: SourceDocument = {
      file: file.displayPath,
      absolutePath: file.absolutePath,
      root: file.root,
      index,
      text,
      lineCounter,
      document,
      substituted: new WeakSet(),
      unresolved: [],
    };
    if (document.errors.length > 0) {
      problems.push(...yamlProblems(source, document.errors));
      broken.push(source);
      return;
    }
    // What the library reads past with a warning (an unknown tag such as `!evil`, whose value is
    // then read as if it had none) is said, not dropped: the author meant something by it.
    for (const warning of document.warnings) {
      const { line, column } = positionAtOffset(source, warning.pos[0]);
      problems.push({
        file: file.displayPath,
        line,
        column,
        code: 'yaml-warning',
        severity: 'warning',
        message: `YAML: ${firstLine(warning.message)}; it is ignored and the value read as written: remove it`,
      });
    }
    documents.push(source);
  });
  return { documents, problems, broken, text };
}

/**
 * The document's plain value. Alias expansion is bounded so that a small file cannot expand into
 * gigabytes (the "billion laughs" attack). Merge keys (`<<: *base`, as in Compose files) are
 * merged, keys written beside them winning.
 */
export function documentValue(source: SourceDocument): { value: unknown } | { problem: Problem } {
  // The library would turn such a key into its text and warn on standard error.
  const complexKey = collectionKey(source.document);
  if (complexKey !== undefined) {
    const { line, column } = positionAtOffset(source, complexKey.range?.[0] ?? source.document.range[0]);
    const message = 'this key is a list or a map; keys are names (text): write it as one';
    return { problem: { file: source.file, line, column, kind: source.kind, id: source.id, code: 'yaml-syntax', message } };
  }
  // The library would build a value that holds itself, which every later reader of it (the
  // schema check, JSON Schema compilation, a test file's comparison) fails on with a stack.
  const looping = selfAlias(source.document);
  if (looping !== undefined) {
    const { line, column } = positionAtOffset(source, looping.range?.[0] ?? source.document.range[0]);
    const message = `alias *${looping.source} is inside the value &${looping.source} names, so that value would contain itself without end; write the inner part out`;
    return { problem: { file: source.file, line, column, kind: source.kind, id: source.id, code: 'yaml-aliases', message } };
  }
  try {
    return { value: source.document.toJS({ maxAliasCount }) };
  } catch (error) {
    // An alias without its anchor fails as an unresolved alias, or, under a merge key, as a merge
    // of something that is not a map: looked for first either way.
    const unresolved = unresolvedAlias(source.document);
    const merge = unresolved ? undefined : mergeOfNoMap(source.document);
    const culprit = unresolved ?? excessiveAlias(source.document) ?? firstAlias(source.document);
    const { line, column } = positionAtOffset(source, (merge ?? culprit)?.range?.[0] ?? source.document.range[0]);
    const detail = unresolved
      ? unresolvedAliasMessage(source, unresolved.source)
      : merge
        ? `'<<' merges a map (an alias of a map, or a list of them) into this one; write the keys out, or merge a map`
        : error instanceof ReferenceError && /alias/i.test(error.message)
          ? `too many alias expansions (more than ${maxAliasCount})${culprit ? ` at *${culprit.source}` : ''}; this looks like an alias bomb — write the values out or use fewer aliases`
          : `cannot read document: ${firstLine(String((error as Error).message ?? error))}`;
    return {
      problem: {
        file: source.file,
        line,
        column,
        kind: source.kind,
        id: source.id,
        code: unresolved || merge ? 'yaml-syntax' : 'yaml-aliases',
        message: detail,
      },
    };
  }
}

/** Why alias *name has no anchor: none before it, or one only in an earlier document, which YAML does not reach across. */
function unresolvedAliasMessage(source: SourceDocument, name: string): string {
  const start = source.document.range[0];
  const anchor = new RegExp(`&${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![^\\s,\\]}])`);
  if (anchor.test(source.text.slice(0, start))) {
    return `alias *${name} refers to &${name} of an earlier document; anchors do not reach across '---', since each definition is read on its own: write the value out here`;
  }
  return `alias *${name} has no anchor &${name} before it; write the value out, or put &${name} on the value it repeats, earlier in the document`;
}

/**
 * The alias at which expansion passes the limit, found by counting as the yaml library does: in
 * document order, each alias adds one use of its anchor, and a use weighs as much as the aliases
 * the anchored node holds (at least 1).
 */
function excessiveAlias(document: Document.Parsed): Alias | undefined {
  const uses = new Map<Node, { count: number; weight: number }>();
  const anchored: Node[] = [];
  const weight = (node: unknown): number => {
    if (isAlias(node)) {
      const use = uses.get(anchorOf(node)!);
      return use ? use.count * use.weight : 0;
    }
    let most = isCollection(node) ? 0 : 1;
    if (isCollection(node)) for (const item of node.items) most = Math.max(most, weight(item));
    if (isPair(node)) most = Math.max(weight(node.key), weight(node.value));
    return most;
  };
  // The anchor an alias refers to: the last node before it carrying that anchor name.
  const anchorOf = (alias: Alias): Node | undefined => {
    for (let i = anchored.length - 1; i >= 0; i--) if (anchored[i]!.anchor === alias.source) return anchored[i];
    return undefined;
  };
  let culprit: Alias | undefined;
  visit(document, {
    Node(_, node) {
      if (isAlias(node)) {
        const target = anchorOf(node);
        const use = target && uses.get(target);
        if (!target || !use) return undefined;
        use.count += 1;
        if (use.weight === 0) use.weight = weight(target);
        if (use.count * use.weight > maxAliasCount) {
          culprit = node;
          return visit.BREAK;
        }
      } else if (node.anchor) {
        anchored.push(node as Node);
        uses.set(node as Node, { count: 1, weight: 0 });
      }
      return undefined;
    },
  });
  return culprit;
}

/**
 * The first alias inside the very node its anchor is on (`&s {child: *s}`). An alias names the
 * last node before it with that anchor, so one walk in document order knows each; the library's
 * own lookup walks the whole document per alias, which took a minute on a file of 20,000.
 */
function selfAlias(document: Document.Parsed): Alias | undefined {
  const anchored = new Map<string, unknown>();
  let found: Alias | undefined;
  visit(document, {
    Node(_, node, path) {
      if (isAlias(node)) {
        const target = anchored.get(node.source);
        if (target === undefined || !path.includes(target as never)) return undefined;
        found = node;
        return visit.BREAK;
      }
      if (node.anchor) anchored.set(node.anchor, node);
      return undefined;
    },
  });
  return found;
}

/** The first key of a map that is itself a list or a map (`? [a, b]`), which JSON cannot hold. */
function collectionKey(document: Document.Parsed): Node | undefined {
  let found: Node | undefined;
  visit(document, {
    Pair(_, pair) {
      if (!isCollection(pair.key)) return undefined;
      found = pair.key;
      return visit.BREAK;
    },
  });
  return found;
}

/** The value of the first merge key (`<<`) that is not a map, an alias or a list of them. */
function mergeOfNoMap(document: Document.Parsed): Node | undefined {
  const mergeable = (node: unknown): boolean => isMap(node) || isAlias(node);
  let found: Node | undefined;
  visit(document, {
    Pair(_, pair) {
      // With merge keys on, the library reads a plain `<<` key as a scalar whose value is a symbol.
      if (!isScalar(pair.key) || typeof pair.key.value !== 'symbol') return undefined;
      const value = pair.value;
      if (mergeable(value) || (isSeq(value) && value.items.every(mergeable))) return undefined;
      found = (value as Node | null) ?? (pair.key as Node);
      return visit.BREAK;
    },
  });
  return found;
}

/** The first alias with no anchor of its name before it in the document. */
function unresolvedAlias(document: Document.Parsed): Alias | undefined {
  const anchors = new Set<string>();
  let found: Alias | undefined;
  visit(document, {
    Node(_, node) {
      if (isAlias(node)) {
        if (anchors.has(node.source)) return undefined;
        found = node;
        return visit.BREAK;
      }
      if (node.anchor) anchors.add(node.anchor);
      return undefined;
    },
  });
  return found;
}

function firstAlias(document: Document.Parsed): Alias | undefined {
  let found: Alias | undefined;
  visit(document, {
    Alias(_, node) {
      found = node;
      return visit.BREAK;
    },
  });
  return found;
}
