/**
 * The syntax of a definition's expressions, checked even when the definition broke its schema: a
 * misspelt property (`batchsize`) kept `syncline validate` from reading the mapping beside it, so
 * the mapping's own mistake showed only on the next run, after the first was fixed — one CI round
 * trip per mistake. What is parsed here needs nothing but its own text (filters, orders, mappings
 * and conditions); checks that look at other definitions or at the fields wait for a definition
 * that fits its schema. A property whose value is not text is the schema's to report.
 */
import type { SourceDocument } from '../load/source-document.js';
import type { CheckContext } from './check-context.js';

type Parse = 'expression' | 'order' | 'mapping';

/** The expression properties of each kind, by their path in the document. */
const properties: Record<'Sync' | 'Webhook', ReadonlyArray<[path: readonly string[], parse: Parse]>> = {
  Sync: [
    [['source', 'where'], 'expression'],
    [['source', 'order'], 'order'],
    [['precondition'], 'expression'],
    [['mapping'], 'mapping'],
    [['match', 'where'], 'expression'],
  ],
  Webhook: [
    [['condition'], 'expression'],
    [['search'], 'expression'],
    [['targetSearch'], 'expression'],
    [['queryFilter'], 'expression'],
    [['order'], 'order'],
    [['readMapping'], 'mapping'],
    [['writeMapping'], 'mapping'],
    [['resultMapping'], 'mapping'],
  ],
};

/** Reports the syntax errors of the expressions of `value`, a Sync or Webhook that did not fit its schema. */
export function checkExpressionSyntax(context: CheckContext, source: SourceDocument, kind: 'Sync' | 'Webhook', value: unknown): void {
  for (const [path, parse] of properties[kind]) {
    const text = textAt(value, path);
    // Empty text breaks the schema's minLength, which says so already.
    if (text === undefined || text === '') continue;
    if (parse === 'expression') context.expression(source, path, text);
    else if (parse === 'order') context.order(source, path, text);
    else context.mapping(source, path, text);
  }
}

function textAt(value: unknown, path: readonly string[]): string | undefined {
  let found = value;
  for (const key of path) {
    if (typeof found !== 'object' || found === null || Array.isArray(found) || !Object.hasOwn(found, key)) return undefined;
    found = (found as Record<string, unknown>)[key];
  }
  return typeof found === 'string' ? found : undefined;
}
