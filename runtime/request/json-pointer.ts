/** JSON pointers (RFC 6901), as problem bodies name the place in a request they are about. */

/** A property name as one step of a pointer: `~` and `/` escaped. */
export function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The value `pointer` names in `value` (own properties only); undefined when there is none. */
export function valueAt(value: unknown, pointer: string): unknown {
  let found = value;
  for (const segment of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    found = typeof found === 'object' && found !== null && Object.hasOwn(found, key) ? (found as Record<string, unknown>)[key] : undefined;
  }
  return found;
}
