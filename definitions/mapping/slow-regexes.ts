/**
 * Regular expression literals of a mapping (`$match(email, /…/)`) that take exponential time on
 * some inputs (definitions/regex/backtracking-pattern.ts): a mapping runs on what a webhook's
 * caller or a source system sends, and such a match holds the whole process while it lasts —
 * JSONata's time limit is only looked at between steps, and one match is one step.
 */
import type { ExprNode } from 'jsonata';
import { exponentialPart } from '../regex/backtracking-pattern.js';
import { eachNode } from './ast-nodes.js';

export interface SlowRegex {
  /** The repeated group found. */
  part: string;
  /** Offset of the literal's opening `/` in the mapping's text. */
  start: number;
}

/** Every such literal of `ast`, whose text is `text`. */
export function slowRegexes(ast: ExprNode, text: string): SlowRegex[] {
  const found: SlowRegex[] = [];
  eachNode(ast, (node) => {
    if (node.type !== 'regex' || !(node.value instanceof RegExp)) return;
    const part = exponentialPart(node.value.source);
    if (part === undefined) return;
    const literal = `/${node.value.source}/`;
    const at = text.lastIndexOf(literal, typeof node.position === 'number' ? node.position : text.length);
    found.push({ part, start: Math.max(0, at === -1 ? text.indexOf(literal) : at) });
  });
  return found;
}
