/**
 * ActionParams of a start, as the sync engine uses them: `$params` in the JSONata mapping (an
 * object Name → Value) and `#params.Name#` placeholders in filters, the precondition and the match
 * search.
 */
import type { PlaceholderValues } from '../../connectors/connection.js';
import { resolvePath } from '../../definitions/expression/index.js';
import type { ActionParam } from '../queue/queue-item.js';

export type Params = Readonly<Record<string, string>>;

/** Name → Value; a name given twice keeps its last value (the later parameter overrides). */
export function paramsObject(actionParams: readonly ActionParam[] | null | undefined): Params {
  // A null prototype: a parameter named `__proto__` or `constructor` is just a parameter.
  const params = Object.create(null) as Record<string, string>;
  for (const param of actionParams ?? []) params[param.Name] = param.Value;
  return Object.freeze(params);
}

/** `#params.Name#` → the parameter's value; any other placeholder → undefined (missing is null). */
export function paramPlaceholders(params: Params): PlaceholderValues {
  return (path) => (path[0] === 'params' && path.length === 2 ? ownValue(params, path[1]!) : undefined);
}

/**
 * Placeholders read from `record`, except `#params.Name#`, which reads the action parameters: what
 * check-sync allows in a precondition (`#field#` is the source record's field) and what a match
 * search needs (`#Field#` is the mapped record's field).
 */
export function recordOrParamPlaceholders(record: unknown, params: Params): PlaceholderValues {
  return (path) => (path[0] === 'params' && path.length === 2 ? ownValue(params, path[1]!) : resolvePath(record, path));
}

function ownValue(params: Params, name: string): string | undefined {
  return Object.hasOwn(params, name) ? params[name] : undefined;
}
