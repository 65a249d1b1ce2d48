/**
 * The keys a mapping produces, when they can be read off its text: the mapping is an object
 * constructor whose keys are all string literals (`{ "AccountName": name, "Email": email }`, the
 * common case), possibly as the last expression of a block. Whatever else a mapping is — a
 * conditional, `$merge`, a computed key, a transform — its keys depend on the data, and the
 * answer is undefined: the caller then says nothing about them.
 */
import type jsonata from 'jsonata';

/** One key of the object constructor, with where its quoted text starts in the mapping. */
export interface MappingKey {
  name: string;
  /** Offset in the mapping text of the key's opening quote. */
  start: number;
}

type Node = { readonly type?: string; readonly value?: unknown; readonly position?: number } & Readonly<Record<string, unknown>>;

/** The literal keys of the mapping's result object, or undefined when they are not fixed by its text. */
export function mappingKeys(expression: Pick<jsonata.Expression, 'ast'>, text: string): MappingKey[] | undefined {
  let node = expression.ast() as unknown as Node;
  // `( $x := …; { … } )`: a block answers its last expression.
  while (node.type === 'block' && Array.isArray(node.expressions) && node.expressions.length > 0) node = node.expressions.at(-1) as Node;
  if (node.type !== 'unary' || node.value !== '{' || !Array.isArray(node.lhs)) return undefined;
  // Anything JSONata hangs on the constructor (a predicate, a group-by, a focus) changes its result.
  if (Object.keys(node).some((key) => !['type', 'value', 'position', 'lhs'].includes(key))) return undefined;
  const keys: MappingKey[] = [];
  for (const pair of node.lhs as unknown[]) {
    const key = Array.isArray(pair) ? (pair[0] as Node | undefined) : undefined;
    if (key?.type !== 'string' || typeof key.value !== 'string' || typeof key.position !== 'number') return undefined;
    keys.push({ name: key.value, start: quoteStart(text, key.value, key.position) });
  }
  return keys;
}

/**
 * JSONata gives a string token's end. Without escapes the token is the value between two quotes;
 * with them, the opening quote is the nearest one before the end that opens the same text.
 */
export function quoteStart(text: string, value: string, end: number): number {
  const plain = end - value.length - 2;
  if (plain >= 0 && (text[plain] === '"' || text[plain] === "'") && text.slice(plain + 1, end - 1) === value) return plain;
  const closing = text[end - 1];
  for (let at = end - 2; at >= 0; at--) if (text[at] === closing && text[at - 1] !== '\\') return at;
  return Math.max(0, plain);
}
