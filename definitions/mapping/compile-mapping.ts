/**
 * A mapping: JSONata's own expression, with compiled closures in front when the whole expression
 * is in compile-ast.ts's subset. JSONata's evaluator is asynchronous — a promise per AST node — and
 * was the largest CPU cost of a sync; the closures compute the same result synchronously.
 *
 * `compileMapping(text)` answers an object with JSONata's `Expression` shape, so every caller keeps
 * `await mapping.evaluate(input, bindings)`; `evaluateMappingNow` lets a hot loop skip the promise.
 * A record the closures cannot answer exactly (an array in a path, a value JSONata would reject)
 * is evaluated by JSONata, so results and errors are JSONata's.
 */
import jsonata from 'jsonata';
import { compileAst, type CompiledAst } from './compile-ast.js';
import type { Scope } from './mapping-values.js';

/** What `evaluateMappingNow` answers when only the asynchronous `evaluate` can answer. */
export const NOT_NOW: unique symbol = Symbol('syncline.mapping.not-now');

type Bindings = Record<string, unknown>;

class CompiledMapping implements jsonata.Expression {
  #compiled: CompiledAst | undefined;

  constructor(private readonly expression: jsonata.Expression) {
    this.#compiled = compileAst(expression.ast());
  }

  /** True while the closures are in use (tests check the subset is what they think). */
  get compiled(): boolean {
    return this.#compiled !== undefined;
  }

  evaluate(input: unknown, bindings?: Bindings): Promise<unknown>;
  evaluate(input: unknown, bindings: Bindings | undefined, callback: (error: jsonata.JsonataError, response: unknown) => void): void;
  evaluate(
    input: unknown,
    bindings?: Bindings,
    callback?: (error: jsonata.JsonataError, response: unknown) => void,
  ): Promise<unknown> | undefined {
    if (callback !== undefined) {
      this.expression.evaluate(input, bindings, callback);
      return undefined;
    }
    const now = this.evaluateNow(input, bindings);
    return now === NOT_NOW ? this.expression.evaluate(input, bindings) : Promise.resolve(now);
  }

  /** The result computed synchronously, or NOT_NOW. Never throws: a failure is JSONata's to report. */
  evaluateNow(input: unknown, bindings: Bindings | undefined): unknown {
    const compiled = this.#compiled;
    // JSONata treats an array input as a sequence; a binding named like a called function replaces it.
    if (compiled === undefined || Array.isArray(input)) return NOT_NOW;
    const scope: Scope = { input, bindings: typeof bindings === 'object' && bindings !== null ? bindings : undefined, clock: undefined };
    if (scope.bindings !== undefined) {
      for (const name of compiled.functions) if (Object.prototype.propertyIsEnumerable.call(scope.bindings, name)) return NOT_NOW;
    }
    try {
      return compiled.evaluate(scope);
    } catch {
      // DEFER is the closures' "not mine"; anything else (a getter that throws, a very deep
      // expression) is JSONata's to answer too, in its own words.
      return NOT_NOW;
    }
  }

  /** Assigning or registering changes what names mean: the closures step aside for good. */
  assign(name: string, value: unknown): void {
    this.#compiled = undefined;
    this.expression.assign(name, value);
  }

  registerFunction(name: string, implementation: (this: jsonata.Focus, ...args: unknown[]) => unknown, signature?: string): void {
    this.#compiled = undefined;
    this.expression.registerFunction(name, implementation, signature);
  }

  ast(): jsonata.ExprNode {
    return this.expression.ast();
  }
}

/** Parses `text` (throwing JSONata's syntax error as `jsonata(text)` does) and compiles what it can. */
export function compileMapping(text: string): jsonata.Expression {
  return new CompiledMapping(jsonata(text));
}

/** True when `mapping` came from compileMapping and its closures are in use. */
export function isCompiledMapping(mapping: jsonata.Expression): boolean {
  return mapping instanceof CompiledMapping && mapping.compiled;
}

/**
 * `mapping`'s result for `input` synchronously, when its closures can give it; otherwise NOT_NOW,
 * and the caller awaits `mapping.evaluate(input, bindings)`.
 */
export function evaluateMappingNow(mapping: jsonata.Expression, input: unknown, bindings?: Bindings): unknown {
  return mapping instanceof CompiledMapping ? mapping.evaluateNow(input, bindings) : NOT_NOW;
}
