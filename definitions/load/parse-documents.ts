/**
 * Reads one definition file and splits it into YAML documents with positions. Everything a
 * hostile or broken file can do — not YAML, duplicate keys, alias bombs, sheer size, binary
 * content — becomes a problem with a file, line and column, never an exception.
 */
import { readFile, stat } from 'node:fs/promises';
import { LineCounter, parseAllDocuments, visit, type Document, type Node } from 'yaml';
import type { Problem } from '../problem.js';
import type { DefinitionFile } from './find-files.js';
import { positionAtOffset, type SourceDocument } from './source-document.js';

/** Largest definition file read; larger ones are refused before parsing. */
export const maxFileBytes = 4 * 1024 * 1024;
/** Aliases allowed per document: enough for shared blocks, far too few for a billion-laughs bomb. */
export const maxAliasCount = 100;

export interface ParsedFile {
  documents: SourceDocument[];
  problems: Problem[];
  /** The file text, for the snapshot digest. */
  text: string;
}

const yamlErrorAdvice: Record<string, string> = {
  DUPLICATE_KEY: 'each key may appear once per mapping; remove or rename one of them',
  TAB_AS_INDENT: 'indent with spaces, not tabs',
  BAD_INDENT: 'check the indentation of this line',
  MISSING_CHAR: 'a closing quote or bracket is missing',
  MULTILINE_IMPLICIT_KEY: 'a key must fit on one line; quote multi-line strings',
};

export async function parseDefinitionFile(file: DefinitionFile): Promise<ParsedFile> {
  const at = (line: number, column: number, code: string, message: string): ParsedFile => ({
    documents: [],
    problems: [{ file: file.displayPath, line, column, code, message }],
    text: '',
  });
  const info = await stat(file.absolutePath).catch(() => null);
  if (!info) return at(1, 1, 'file-unreadable', 'file disappeared while loading');
  if (info.size > maxFileBytes) {
    const mb = (info.size / (1024 * 1024)).toFixed(1);
    return at(1, 1, 'file-too-large', `file is ${mb} MiB; definition files may be at most ${maxFileBytes / (1024 * 1024)} MiB — split it into several files`);
  }
  const bytes = await readFile(file.absolutePath);
  if (bytes.includes(0)) return at(1, 1, 'not-yaml', 'file contains NUL bytes: it is not a YAML text file');
  return parseDefinitionText(file, bytes.toString('utf8'));
}

export function parseDefinitionText(file: DefinitionFile, text: string): ParsedFile {
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true });
  const docs: Document.Parsed[] = Array.isArray(parsed) ? parsed : [];
  const problems: Problem[] = [];
  const documents: SourceDocument[] = [];
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
    };
    if (document.errors.length > 0) {
      for (const error of document.errors) {
        const { line, column } = positionAtOffset(source, error.pos[0]);
        const advice = yamlErrorAdvice[error.code];
        const message = firstLine(error.message);
        problems.push({ file: file.displayPath, line, column, code: 'yaml-syntax', message: `YAML: ${message}${advice ? ` (${advice})` : ''}` });
      }
      return;
    }
    documents.push(source);
  });
  return { documents, problems, text };
}

/**
 * The document's plain value. Alias expansion is bounded so that a small file cannot expand into
 * gigabytes (the "billion laughs" attack).
 */
export function documentValue(source: SourceDocument): { value: unknown } | { problem: Problem } {
  try {
    return { value: source.document.toJS({ maxAliasCount }) };
  } catch (error) {
    let offset = source.document.range[0];
    visit(source.document, {
      Alias(_, node) {
        offset = (node as Node).range?.[0] ?? offset;
        return visit.BREAK;
      },
    });
    const { line, column } = positionAtOffset(source, offset);
    const detail = error instanceof ReferenceError && /alias/i.test(error.message)
      ? `too many alias expansions (more than ${maxAliasCount}); this looks like an alias bomb — write the values out or use fewer aliases`
      : `cannot read document: ${firstLine(String((error as Error).message ?? error))}`;
    return { problem: { file: source.file, line, column, code: 'yaml-aliases', message: detail } };
  }
}


function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '').trim();
}
