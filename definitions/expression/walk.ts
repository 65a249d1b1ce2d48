/** Generic traversal of the AST and the reference lists the definition checks need. */

import type { Expression } from './ast.js';

/** A field or placeholder reference with its source range. */
export interface PathReference {
  path: string[];
  start: number;
  end: number;
}

/** The direct children of a node, in source order. */
export function childrenOf(node: Expression): Expression[] {
  switch (node.type) {
    case 'and':
    case 'or':
      return node.operands;
    case 'not':
      return [node.operand];
    case 'compare':
      return [node.left, node.right];
    case 'like':
      return [node.value, node.pattern];
    case 'in':
      return [node.value, ...node.list];
    case 'isNull':
      return [node.value];
    case 'between':
      return [node.value, node.low, node.high];
    case 'call':
      return node.args;
    case 'literal':
    case 'field':
    case 'placeholder':
      return [];
  }
}

/**
 * Visits every node depth-first in source order, parents before children. Returning false from
 * `visit` skips that node's children.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a visitor that returns nothing visits the children, as one returning true.
export function walkExpression(root: Expression, visit: (node: Expression) => boolean | void): void {
  const stack: Expression[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (visit(node) === false) continue;
    const children = childrenOf(node);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}

function collect(ast: Expression, type: 'field' | 'placeholder'): PathReference[] {
  const found: PathReference[] = [];
  walkExpression(ast, (node) => {
    if (node.type === type) found.push({ path: [...node.path], start: node.start, end: node.end });
  });
  return found;
}

/** Every placeholder (`#a.b#`) in source order, duplicates included. */
export function collectPlaceholders(ast: Expression): PathReference[] {
  return collect(ast, 'placeholder');
}

/** Every field reference in source order, duplicates included. */
export function collectFields(ast: Expression): PathReference[] {
  return collect(ast, 'field');
}
