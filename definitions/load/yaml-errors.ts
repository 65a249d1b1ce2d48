/**
 * Turns the yaml library's parse errors into problems that name the place and the fix. The library
 * notices an unclosed bracket or quote only where the file ends, so those are moved back to where
 * the bracket or quote opens; a duplicate key names the key and its first line; tab indentation is
 * one problem per document however many lines use tabs; absurd nesting that exhausts the stack is
 * one problem, not hundreds of echoes of it.
 */
import { isMap, isPair, isScalar, isSeq, Scalar, visit, type Node, type YAMLError } from 'yaml';
import type { Problem } from '../problem.js';
import { positionAtOffset, type SourceDocument } from './source-document.js';

const advice: Record<string, string> = {
  DUPLICATE_KEY: 'each key may appear once per mapping; remove or rename one of them',
  BAD_INDENT: 'check the indentation of this line',
  MISSING_CHAR: 'a closing quote or bracket is missing',
  MULTILINE_IMPLICIT_KEY: 'a key must fit on one line; quote multi-line strings',
};

/** Most line numbers listed in one message (tab indentation). */
const maxListedLines = 5;

export function yamlProblems(source: SourceDocument, errors: readonly YAMLError[]): Problem[] {
  const at = (offset: number, message: string): Problem => {
    const { line, column } = positionAtOffset(source, offset);
    return { file: source.file, line, column, code: 'yaml-syntax', message: `YAML: ${message}` };
  };

  // A stack overflow inside the parser is followed by an error for every bracket left open.
  const exhausted = errors.find((error) => error.code === 'RESOURCE_EXHAUSTION');
  if (exhausted) {
    return [
      at(
        exhausted.pos[0],
        'the document nests too deeply to be read (hundreds of levels of brackets or indentation); a definition needs only a few levels',
      ),
    ];
  }

  const problems: Problem[] = [];
  const tabErrors = errors.filter((error) => error.code === 'TAB_AS_INDENT');
  const seenOffsets = new Set<number>();
  const multilineKeyOffsets = new Set(errors.filter((e) => e.code === 'MULTILINE_IMPLICIT_KEY').map((e) => e.pos[0]));
  for (const error of errors) {
    const start = error.pos[0];
    if (error.code === 'TAB_AS_INDENT') continue;
    // "Nested mappings are not allowed in compact mappings" repeats what the multi-line key says.
    if (error.code === 'BLOCK_AS_IMPLICIT_KEY' && multilineKeyOffsets.has(start)) continue;
    if (seenOffsets.has(start)) continue;
    seenOffsets.add(start);
    problems.push(
      explain(source, error, at) ?? at(start, `${firstLine(error.message)}${advice[error.code] ? ` (${advice[error.code]})` : ''}`),
    );
  }
  const [firstTab, ...moreTabs] = tabErrors;
  if (firstTab) {
    const lines = moreTabs.map((error) => positionAtOffset(source, error.pos[0]).line);
    const listed = lines.slice(0, maxListedLines).join(', ') + (lines.length > maxListedLines ? ', …' : '');
    const others = lines.length > 0 ? ` (line${lines.length === 1 ? '' : 's'} ${listed} too)` : '';
    problems.push(at(firstTab.pos[0], `tabs are not allowed as indentation; indent with spaces${others}`));
  }
  return problems;
}

/** A clearer problem for the errors whose library message or position misleads; else undefined. */
function explain(source: SourceDocument, error: YAMLError, at: (offset: number, message: string) => Problem): Problem | undefined {
  const [start, end] = error.pos;
  const flow = /^Flow (map|sequence)\b.*end with a ([}\]])/.exec(error.message);
  if (flow) {
    const close = flow[2]!;
    const opening = close === '}' ? '{' : '[';
    const opened = (node: Node) =>
      (close === '}' ? isMap(node) && node.flow : isSeq(node) && node.flow) === true && node.range?.[1] === start;
    const open = findNode(source, opened);
    if (open?.range) {
      // `{ where: Email = #Email# }`: the closing bracket is there, but inside a comment.
      const raw = source.text.slice(open.range[0], open.range[1]);
      const comment = /(^|[ \t])#/.exec(raw);
      if (comment && raw.indexOf(close, comment.index) >= 0) {
        const line = positionAtOffset(source, open.range[0]).line;
        return at(
          open.range[0] + comment.index + comment[1]!.length,
          `' #' starts a comment, which hides the rest of the line and the '${close}' closing the '${opening}' on line ${line}; put the value that contains # in quotes`,
        );
      }
      return at(open.range[0], `this '${opening}' is never closed; add '${close}' after the last ${close === '}' ? 'entry' : 'item'}`);
    }
  }
  const quote = /^Missing closing ("|')quote/.exec(error.message);
  if (quote) {
    const open = findNode(source, (node) => isScalar(node) && node.range?.[1] === start && node.type !== Scalar.PLAIN);
    if (open?.range) {
      const mark = quote[1]!;
      const ranTo = positionAtOffset(source, start).line;
      return at(open.range[0], `this ${mark}-quoted string is never closed (it runs on to line ${ranTo}); add the closing ${mark}`);
    }
  }
  if (error.code === 'DUPLICATE_KEY') {
    const duplicate = duplicateKey(source, start);
    if (duplicate) {
      const first = positionAtOffset(source, duplicate.firstOffset);
      return at(start, `key '${duplicate.key}' appears twice in this mapping (first on line ${first.line}); remove or rename one of them`);
    }
  }
  if (error.code === 'MULTILINE_IMPLICIT_KEY') {
    // The key runs over a line break: usually a line indented deeper than the one above it.
    const text = source.text.slice(start, end);
    const lineBreak = text.indexOf('\n');
    if (lineBreak >= 0) {
      const indent = /^[ \t]*/.exec(text.slice(lineBreak + 1))![0].length;
      return at(
        start + lineBreak + 1 + indent,
        'this line is indented deeper than the line above, so it does not start a new key; line up the keys of one mapping (or quote a value that spans lines)',
      );
    }
  }
  if (error.code === 'UNEXPECTED_TOKEN' && /^Unexpected /.test(error.message)) {
    const text = firstLine(source.text.slice(start, end)).trim();
    const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
    return at(start, `unexpected '${shown}' after the value above; a definition is a mapping of 'key: value' lines`);
  }
  return undefined;
}

function findNode(source: SourceDocument, test: (node: Node) => boolean): Node | undefined {
  let found: Node | undefined;
  visit(source.document, {
    Node(_, node) {
      if (test(node as Node)) {
        found = node as Node;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** The key at `offset` that repeats an earlier key of its mapping, and where that one is. */
function duplicateKey(source: SourceDocument, offset: number): { key: string; firstOffset: number } | undefined {
  let result: { key: string; firstOffset: number } | undefined;
  visit(source.document, {
    Map(_, map) {
      if (!isMap(map)) return undefined;
      const pairs = map.items.filter(isPair);
      const repeated = pairs.find((pair) => isScalar(pair.key) && pair.key.range?.[0] === offset);
      if (!repeated || !isScalar(repeated.key)) return undefined;
      const key = String(repeated.key.value);
      const first = pairs.find((pair) => isScalar(pair.key) && String(pair.key.value) === key);
      if (first && first !== repeated && isScalar(first.key) && first.key.range) {
        result = { key, firstOffset: first.key.range[0] };
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return result;
}

export function firstLine(message: string): string {
  return message
    .split('\n')[0]!
    .replace(/ at line \d+, column \d+:?$/, '')
    .trim();
}
