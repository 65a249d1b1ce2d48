/** Where an evaluated expression gets its data, and the usual way to build that from plain objects. */

/** Where field and placeholder values come from. Return undefined for anything missing. */
export interface EvaluationScope {
  /** The value of a field of the record being tested, e.g. ['address', 'city']. */
  field(path: readonly string[]): unknown;
  /** The value of a placeholder such as `#Email#` (path ['Email']), usually from request data. */
  placeholder(path: readonly string[]): unknown;
}

/**
 * Follows `path` through plain objects and arrays. Only own properties count, so a path such as
 * `constructor` or `__proto__` never reaches into prototypes; anything missing is undefined.
 * Names match exactly (case-sensitively).
 */
export function resolvePath(root: unknown, path: readonly string[]): unknown {
  let current = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/**
 * A scope reading fields from `record` and placeholders from `placeholders`. Without
 * `placeholders`, placeholders read from the record too, which is what a webhook execution
 * condition such as `#status# <> 'draft'` wants: the request data is both.
 */
export function recordScope(record: unknown, placeholders: unknown = record): EvaluationScope {
  return {
    field: (path) => resolvePath(record, path),
    placeholder: (path) => resolvePath(placeholders, path),
  };
}
