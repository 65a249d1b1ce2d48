/**
 * The source fields a mapping reads at the top of the source record — `name`, `addresses.main.city`
 * — as written in its text, so validation can say which of them the source does not have: a name
 * the record lacks is JSONata's "nothing", and the mapping leaves that target field out, or writes
 * null, for every record, without a word (`"AccountName": nmae`).
 *
 * Only names read in the record's own context are collected: the first steps of paths in the
 * mapping's top level, inside its object constructors, operators, conditions, blocks and function
 * arguments. Whatever changes the context — a later step of a path, a predicate, a lambda's body,
 * a group-by, a transform — and any construct not known here is left alone, so nothing is
 * reported that could be right.
 */
import type { ExprNode } from 'jsonata';

export interface SourceFieldRead {
  /** `[field]`, or `[group, type, field]` for a typed group's field. */
  path: string[];
  /** Offset in the mapping text where the name starts. */
  start: number;
}

type Node = { readonly type?: string; readonly value?: unknown; readonly position?: number } & Readonly<Record<string, unknown>>;

/** Keys a plain name step has; one with more (a predicate, a focus, a group-by) is read as written, then no further. */
const plainStep = new Set(['type', 'value', 'position']);

export function sourceFieldReads(ast: ExprNode, text: string): SourceFieldRead[] {
  const reads: SourceFieldRead[] = [];
  const nameStart = (step: Node): number => {
    const name = String(step.value);
    const end = typeof step.position === 'number' ? step.position : 0;
    // A name in backquotes (`unit price`) ends after its closing quote.
    return text[end - 1] === '`' ? end - name.length - 2 : end - name.length;
  };
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    const node = value as Node;
    switch (node.type) {
      case 'path': {
        const steps = Array.isArray(node.steps) ? (node.steps as Node[]) : [];
        const first = steps[0];
        if (first?.type === 'name' && typeof first.value === 'string') {
          const path = [first.value];
          if (Object.keys(first).every((key) => plainStep.has(key))) {
            for (const step of steps.slice(1, 3)) {
              if (step.type !== 'name' || typeof step.value !== 'string' || !Object.keys(step).every((key) => plainStep.has(key))) break;
              path.push(step.value);
            }
          }
          reads.push({ path, start: nameStart(first) });
        } else if (first !== undefined && first.type !== 'name') {
          visit(first);
        }
        return;
      }
      case 'unary':
        if (node.value === '{' && Array.isArray(node.lhs)) {
          for (const pair of node.lhs) if (Array.isArray(pair)) for (const part of pair) visit(part);
        } else if (node.value === '[' && Array.isArray(node.expressions)) {
          for (const item of node.expressions) visit(item);
        } else if (node.value === '-') visit(node.expression);
        return;
      case 'binary':
        visit(node.lhs);
        visit(node.rhs);
        return;
      case 'condition':
        visit(node.condition);
        visit(node.then);
        visit(node.else);
        return;
      case 'block':
        if (Array.isArray(node.expressions)) for (const expression of node.expressions) visit(expression);
        return;
      case 'bind':
        visit(node.rhs);
        return;
      case 'function':
      case 'partial':
        if (Array.isArray(node.arguments)) for (const argument of node.arguments) visit(argument);
        return;
      default:
        return;
    }
  };
  visit(ast);
  return reads.sort((a, b) => a.start - b.start);
}
