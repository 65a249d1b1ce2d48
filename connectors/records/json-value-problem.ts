/**
 * What keeps a Json value from being written as JSON text, found without writing it: a number JSON
 * has no spelling for (Infinity, NaN — `JSON.stringify` silently writes `null`), a bigint (it
 * throws), or nesting deeper than MAX_JSON_DEPTH. V8's `JSON.stringify` recurses and fails with a
 * RangeError a few thousand levels down, where exactly depends on the stack it is called on; a
 * record's value that deep would fail a whole write batch, or an answer after its status was sent.
 *
 * The walk is iterative, so a value of any depth is looked at safely, and it builds the path of
 * what it names only once it found it.
 */
/** The deepest a Json value of a record may nest: far past any record's, well inside what JSON.stringify manages. */
export const MAX_JSON_DEPTH = 1000;

interface Visit {
  value: unknown;
  depth: number;
  parent: Visit | undefined;
  key: string | number | undefined;
}

/** `value`'s first problem as JSON, with where it is (`at v[2]`), or undefined when it has none. */
export function jsonValueProblem(value: unknown): string | undefined {
  const pending: Visit[] = [{ value, depth: 0, parent: undefined, key: undefined }];
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const item = visit.value;
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) return `${item} ${where(visit)} is no number JSON can hold`;
    } else if (typeof item === 'bigint') {
      return `a bigint ${where(visit)} is no JSON value`;
    } else if (typeof item === 'object' && item !== null && !hasOwnJsonForm(item)) {
      if (visit.depth >= MAX_JSON_DEPTH) return `the value ${where(visit)} is nested more than ${MAX_JSON_DEPTH} levels deep`;
      const depth = visit.depth + 1;
      if (Array.isArray(item)) {
        for (let index = item.length - 1; index >= 0; index -= 1) pending.push({ value: item[index], depth, parent: visit, key: index });
      } else {
        for (const key of Object.keys(item)) pending.push({ value: (item as Record<string, unknown>)[key], depth, parent: visit, key });
      }
    }
  }
  return undefined;
}

/** A value JSON.stringify writes through its own `toJSON` (a Date, a Buffer, a marked number): one value, not a container. */
function hasOwnJsonForm(item: object): boolean {
  return typeof (item as { toJSON?: unknown }).toJSON === 'function';
}

/** `at a.b[2]` for the value `visit` holds; `at the top` for the value itself. */
function where(visit: Visit): string {
  const steps: string[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) {
    steps.push(
      typeof at.key === 'number' ? `[${at.key}]` : /^[A-Za-z_$][\w$]*$/.test(at.key) ? `.${at.key}` : `[${JSON.stringify(at.key)}]`,
    );
  }
  if (steps.length === 0) return 'at the top';
  steps.reverse();
  // A path hundreds of steps long says no more than its ends do.
  const path = steps.length > 8 ? `${steps.slice(0, 4).join('')}…${steps.slice(-2).join('')}` : steps.join('');
  return `at ${path.startsWith('.') ? path.slice(1) : path}`;
}
