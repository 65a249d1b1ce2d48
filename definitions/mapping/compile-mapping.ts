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

/**
 * Bounds on one evaluation by JSONata, so a mapping that never ends fails the record it was
 * evaluated for instead of holding the process: a recursion without a base case that is no tail
 * call (`1 + $f($x)`) grew the heap until the process died, and one that is (`$f($x)`) ran
 * forever. `stack` counts nested evaluation steps (an ordinary mapping takes tens; JSONata's own
 * D1011), `timeout` the milliseconds one evaluation may compute (D1012), not counting the turns
 * it gives the rest of the process (below) — under load, a mapping is not failed for others' work.
 */
export const evaluationLimits = { timeout: 10_000, stack: 5_000 } as const;

/**
 * JSONata evaluates every step in promises, so a long evaluation keeps the microtask queue full
 * and nothing else of the process runs — no timer (a sync's timeout, a lease's heartbeat), no
 * request, no signal. Every this many steps an evaluation waits for the event loop's next turn.
 * The hook costs an `await` per step: mappings in compile-ast.ts's subset never reach it.
 */
const stepsBetweenTurns = 1_000;

/** JSONata's hook before each evaluation step (jsonata.js `evaluate`), looked up under this symbol. */
const evaluateEntry = Symbol.for('jsonata.__evaluate_entry');

/** One evaluation's steps and computing time, by its environment (jsonata.js `environment.base`). */
interface EvaluationClock {
  steps: number;
  /** Milliseconds computed before the last turn given away. */
  spent: number;
  /** When it last took up computing again. */
  since: number;
}

/** The hook for mappings under `timeoutMs`. */
function turnTaker(timeoutMs: number) {
  const clocks = new WeakMap<object, EvaluationClock>();
  return (_node: unknown, _input: unknown, environment: { base?: object }): Promise<void> | undefined => {
    const evaluation = environment.base ?? environment;
    let clock = clocks.get(evaluation);
    if (clock === undefined) {
      clock = { steps: 0, spent: 0, since: performance.now() };
      clocks.set(evaluation, clock);
    }
    clock.steps += 1;
    if (clock.steps % stepsBetweenTurns !== 0) return undefined;
    const now = performance.now();
    clock.spent += now - clock.since;
    if (clock.spent > timeoutMs) {
      // JSONata's own error for it, as its `timeout` option would throw.
      throw { code: 'D1012', value: timeoutMs, message: `Evaluation timeout after ${timeoutMs} milliseconds. Check for infinite loop` };
    }
    const running = clock;
    return new Promise((resolve) =>
      setImmediate(() => {
        running.since = performance.now();
        resolve();
      }),
    );
  };
}

/**
 * Parses `text` (throwing JSONata's syntax error as `jsonata(text)` does) and compiles what it can;
 * `limits` other than evaluationLimits are for tests.
 */
export function compileMapping(text: string, limits: { timeout: number; stack: number } = evaluationLimits): jsonata.Expression {
  const expression = jsonata(text, { stack: limits.stack });
  expression.assign(evaluateEntry as unknown as string, turnTaker(limits.timeout));
  return new CompiledMapping(expression);
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
