/**
 * Calls of a mapping to a function that does not exist (`$lowercasee(email)`). JSONata parses them
 * and fails every record at run time with "Attempted to invoke a non-function", naming neither the
 * function nor the place; validation names both.
 *
 * A called name is known when it is one of JSONata's functions, or is defined in the mapping
 * itself: bound with `:=`, a lambda's parameter, or a path's `@$name` / `#$name` variable. Scopes
 * are not followed (a name defined anywhere counts everywhere): the check never reports a call
 * that could work. The bindings Syncline evaluates mappings with (`$params`, `$request`) hold
 * data, never functions.
 */
import type { ExprNode } from 'jsonata';
import { closest } from '../schema/did-you-mean.js';
import { eachNode } from './ast-nodes.js';

/**
 * JSONata 2's functions: those of its static environment, and `$now` and `$millis`, which each
 * evaluation binds. test/unit/definitions/mapping/unknown-functions.test.ts checks each against the
 * installed JSONata.
 */
export const JSONATA_FUNCTIONS: readonly string[] = Object.freeze([
  ...['sum', 'count', 'max', 'min', 'average'],
  ...['string', 'substring', 'substringBefore', 'substringAfter', 'lowercase', 'uppercase', 'length', 'trim', 'pad'],
  ...['match', 'contains', 'replace', 'split', 'join'],
  ...['formatNumber', 'formatBase', 'formatInteger', 'parseInteger', 'number'],
  ...['floor', 'ceil', 'round', 'abs', 'sqrt', 'power', 'random'],
  ...['boolean', 'not'],
  ...['map', 'zip', 'filter', 'single', 'reduce', 'sift', 'keys', 'lookup', 'append', 'exists', 'spread', 'merge', 'reverse', 'each'],
  ...['error', 'assert', 'type', 'sort', 'shuffle', 'distinct'],
  ...['base64encode', 'base64decode', 'encodeUrlComponent', 'encodeUrl', 'decodeUrlComponent', 'decodeUrl', 'eval'],
  ...['toMillis', 'fromMillis', 'clone', 'now', 'millis'],
]);

export interface UnknownFunction {
  /** Without the `$`. */
  name: string;
  /** Offset of the `$` in the mapping's text. */
  start: number;
  /** The closest name JSONata or the mapping defines, when one is close. */
  guess: string | undefined;
}

interface Node {
  type?: string;
  value?: unknown;
  position?: number;
  procedure?: Node;
  lhs?: unknown;
  arguments?: unknown;
  focus?: unknown;
  index?: unknown;
}

/** Every call in `ast` to a name neither JSONata nor the mapping defines, in the order of the text. */
export function unknownFunctionCalls(ast: ExprNode): UnknownFunction[] {
  const defined = new Set<string>(JSONATA_FUNCTIONS);
  const calls: Array<{ name: string; position: number }> = [];
  eachNode(ast, (value) => {
    const node = value as Node;
    if (node.type === 'bind') defineVariable(defined, node.lhs);
    if (node.type === 'lambda' && Array.isArray(node.arguments)) for (const parameter of node.arguments) defineVariable(defined, parameter);
    if (typeof node.focus === 'string') defined.add(node.focus);
    if (typeof node.index === 'string') defined.add(node.index);
    const procedure = node.procedure;
    if ((node.type === 'function' || node.type === 'partial') && procedure?.type === 'variable' && typeof procedure.value === 'string') {
      calls.push({ name: procedure.value, position: procedure.position ?? 0 });
    }
  });
  return calls
    .filter((call) => !defined.has(call.name))
    .map((call) => ({
      name: call.name,
      // JSONata's position is just after the token.
      start: Math.max(0, call.position - call.name.length - 1),
      guess: closest(call.name, defined),
    }))
    .sort((a, b) => a.start - b.start);
}

/** The problem's message for `call`, in the mapping at `where` (a property path). */
export function unknownFunctionMessage(where: string, call: UnknownFunction): string {
  const hint = call.guess === undefined ? '' : `; did you mean $${call.guess}?`;
  return `${where}: $${call.name} is not a JSONata function, nor one the expression defines: JSONata fails every evaluation that reaches the call ("Attempted to invoke a non-function")${hint}`;
}

function defineVariable(defined: Set<string>, node: unknown): void {
  const variable = node as Node | undefined;
  if (variable?.type === 'variable' && typeof variable.value === 'string') defined.add(variable.value);
}
