/**
 * Object constructors of a mapping that give one literal key twice (`{ "AccountName": name,
 * "AccountName": email }`). JSONata parses them, and refuses the object whenever it is built —
 * for a sync's mapping, every record fails with "Multiple key definitions evaluate to same key" —
 * so validation names the key and where it is given again. Computed keys are left alone: whether
 * two of them meet depends on the data.
 */
import type { ExprNode } from 'jsonata';
import { eachNode } from './ast-nodes.js';
import { quoteStart } from './mapping-keys.js';

export interface DuplicateKey {
  name: string;
  /** Offset in the mapping text of the second key's opening quote. */
  start: number;
}

type Node = {
  readonly type?: string;
  readonly value?: unknown;
  readonly position?: number;
  readonly lhs?: unknown;
  readonly group?: unknown;
};

/** Every literal key given again in the same object constructor (or group-by object) of `ast`, in the order of the text. */
export function duplicateKeys(ast: ExprNode, text: string): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  const pairsOf = (node: Node): unknown[] | undefined => {
    if (node.type === 'unary' && node.value === '{' && Array.isArray(node.lhs)) return node.lhs;
    return undefined;
  };
  const check = (pairs: readonly unknown[]): void => {
    const names = new Set<string>();
    for (const pair of pairs) {
      const key = Array.isArray(pair) ? (pair[0] as Node | undefined) : undefined;
      if (key?.type !== 'string' || typeof key.value !== 'string' || typeof key.position !== 'number') continue;
      if (names.has(key.value)) found.push({ name: key.value, start: quoteStart(text, key.value, key.position) });
      names.add(key.value);
    }
  };
  eachNode(ast, (value) => {
    const node = value as Node;
    const pairs = pairsOf(node);
    if (pairs !== undefined) check(pairs);
    const group = node.group as Node | undefined;
    if (group !== undefined && Array.isArray(group.lhs)) check(group.lhs);
  });
  return found.sort((a, b) => a.start - b.start);
}
