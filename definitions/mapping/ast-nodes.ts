/** Walking a JSONata syntax tree: what the mapping checks of validation share. */

/**
 * Calls `visit` on every node object of `ast` once, parents before their children, in the order of
 * their properties (JSONata's trees share nodes, hence once).
 */
export function eachNode(ast: unknown, visit: (node: Readonly<Record<string, unknown>>) => void): void {
  const seen = new Set<object>();
  const walk = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
      return;
    }
    const node = value as Readonly<Record<string, unknown>>;
    visit(node);
    for (const child of Object.values(node)) walk(child);
  };
  walk(ast);
}
