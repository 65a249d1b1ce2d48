import type { FunctionName } from './ast.js';

/** What the parser needs to know about a function: its result kind and its parameters. */
export interface FunctionSpec {
  /** `condition` functions are predicates (OData `contains`…); `value` functions produce a value. */
  returns: 'condition' | 'value';
  /** Parameter names, used in arity messages: "contains takes 2 arguments (value, text)". */
  params: readonly string[];
}

/** The functions the language knows. Names are matched case-insensitively. */
export const FUNCTIONS: Readonly<Record<FunctionName, FunctionSpec>> = Object.freeze({
  contains: { returns: 'condition', params: ['value', 'text'] },
  startswith: { returns: 'condition', params: ['value', 'prefix'] },
  endswith: { returns: 'condition', params: ['value', 'suffix'] },
  tolower: { returns: 'value', params: ['value'] },
  toupper: { returns: 'value', params: ['value'] },
  trim: { returns: 'value', params: ['value'] },
  length: { returns: 'value', params: ['value'] },
});

/** Known function names, sorted, for "unknown function" messages. */
export const FUNCTION_NAMES: readonly FunctionName[] = Object.freeze((Object.keys(FUNCTIONS) as FunctionName[]).sort());

export function isFunctionName(name: string): name is FunctionName {
  return Object.hasOwn(FUNCTIONS, name);
}
