/**
 * An order asked for, as the query parameters of the object's `sort`, when the API can give
 * exactly that order: every term a field of `sort.fields`, in a direction the API can be told, and
 * the key after them (the tie-breaker every connector uses, records/in-memory-read.ts). Otherwise
 * undefined, and the order is made in memory.
 *
 * `sort.fields` is the definition's promise that the API sorts those fields as Syncline does; the
 * reader holds it to that (checkedOrder in read.ts) rather than trusting it.
 */
import type { OrderTerm } from '../../definitions/order/parse-order.js';
import type { SortMapping } from './http-object.js';

export function sortParameters(
  sort: SortMapping | undefined,
  order: readonly OrderTerm[],
  key: readonly string[],
): Record<string, string> | undefined {
  if (sort === undefined || order.length === 0) return undefined;
  const terms = order.map((term) => ({ field: term.field, direction: term.direction }));
  for (const name of key) {
    if (!terms.some((term) => term.field.length === 1 && term.field[0] === name)) terms.push({ field: [name], direction: 'asc' });
  }
  const names: string[] = [];
  const directions: string[] = [];
  for (const term of terms) {
    const [name] = term.field;
    if (term.field.length !== 1 || name === undefined || !sort.fields.has(name)) return undefined;
    if (term.direction === 'desc' && sort.directionParam === undefined && sort.descendingPrefix === undefined) return undefined;
    names.push(term.direction === 'desc' && sort.descendingPrefix !== undefined ? `${sort.descendingPrefix}${name}` : name);
    directions.push(term.direction === 'asc' ? sort.ascending : sort.descending);
  }
  const parameters: Record<string, string> = { [sort.param]: names.join(sort.separator) };
  if (sort.directionParam !== undefined) parameters[sort.directionParam] = directions.join(sort.separator);
  return parameters;
}
