/**
 * Compiles a JSONata AST to plain closures when every node is in a small, safe subset: object
 * constructors with literal keys, field paths, literals, `&`, arithmetic, comparisons, `and`/`or`,
 * `? :`, parentheses, variables from the bindings (`$params.Name`) and the functions of
 * mapping-functions.ts. Anything else — predicates, wildcards, lambdas, grouping, regexes, a
 * function the table lacks — answers undefined, and the mapping stays JSONata's alone.
 *
 * Each construct computes what JSONata computes for the values mapping-values.ts handles and
 * `throw DEFER` for any other, so a record with an array in a path, a text operand of `+` or an
 * infinite number goes back to JSONata whole. The subset has no side effects, so evaluating a
 * record twice is harmless.
 */
import { mappingFunctions } from './mapping-functions.js';
import { DEFER, isArithmeticOperand, isPlainPrimitive, lookup, textOf, truthOf, type Compiled } from './mapping-values.js';

/** An AST node as JSONata's parser leaves it (its typings lack some node types, such as `path`). */
type Node = { readonly type: string } & Readonly<Record<string, unknown>>;

/** A compiled mapping and the function names it calls (a binding of that name would replace one). */
export interface CompiledAst {
  readonly evaluate: Compiled;
  readonly functions: readonly string[];
}

/**
 * The keys each node type may carry. Any other key — `predicate`, `stages`, `group`, `focus`,
 * `index`, `tuple`, `keepArray`, `ancestor` — changes what the node means, so it is out.
 */
const allowedKeys: Readonly<Record<string, ReadonlySet<string>>> = {
  string: new Set(['type', 'value', 'position']),
  number: new Set(['type', 'value', 'position']),
  value: new Set(['type', 'value', 'position']),
  name: new Set(['type', 'value', 'position']),
  variable: new Set(['type', 'value', 'position']),
  path: new Set(['type', 'steps']),
  binary: new Set(['type', 'value', 'position', 'lhs', 'rhs']),
  unary: new Set(['type', 'value', 'position', 'lhs', 'expression']),
  condition: new Set(['type', 'position', 'condition', 'then', 'else']),
  block: new Set(['type', 'position', 'expressions']),
  function: new Set(['type', 'name', 'value', 'position', 'arguments', 'procedure']),
};

/**
 * Names JSONata 2 binds besides the caller's bindings: its functions, `$now` and `$millis`. A
 * variable of such a name is a function value, which the subset does not hold.
 */
const builtinNames: ReadonlySet<string> = new Set(
  (
    'sum count max min average string substring substringBefore substringAfter lowercase uppercase length trim pad match ' +
    'contains replace split join formatNumber formatBase formatInteger parseInteger number floor ceil round abs sqrt power ' +
    'random boolean not map zip filter single reduce sift keys lookup append exists spread merge reverse each error assert ' +
    'type sort shuffle distinct base64encode base64decode encodeUrlComponent encodeUrl decodeUrlComponent decodeUrl eval ' +
    'toMillis fromMillis clone now millis'
  ).split(' '),
);

class OutOfSubset extends Error {}

function out(): never {
  throw new OutOfSubset();
}

function node(value: unknown): Node {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) out();
  const n = value as Node;
  const allowed = typeof n.type === 'string' ? allowedKeys[n.type] : undefined;
  if (allowed === undefined) out();
  for (const key of Object.keys(n)) if (!allowed.has(key)) out();
  return n;
}

/** Answers the compiled mapping, or undefined when `ast` leaves the subset anywhere. */
export function compileAst(ast: unknown): CompiledAst | undefined {
  const functions = new Set<string>();
  const compiler: Compiler = { functions };
  try {
    return { evaluate: compile(ast, compiler), functions: [...functions] };
  } catch {
    // OutOfSubset, or a node shaped other than this compiler knows (another JSONata version):
    // either way the mapping stays JSONata's alone rather than failing to load.
    return undefined;
  }
}

interface Compiler {
  /** Functions called so far. */
  readonly functions: Set<string>;
}

function compile(value: unknown, compiler: Compiler): Compiled {
  const n = node(value);
  switch (n.type) {
    case 'string':
    case 'number':
    case 'value': {
      const literal: unknown = n.value;
      if (!(literal === null || typeof literal === 'string' || typeof literal === 'number' || typeof literal === 'boolean')) out();
      return () => literal;
    }
    case 'path':
      return compilePath(n, compiler);
    case 'variable':
      return compileVariable(n);
    case 'binary':
      return compileBinary(n, compiler);
    case 'unary':
      return n.value === '{' ? compileObject(n, compiler) : n.value === '-' ? compileNegation(n, compiler) : out();
    case 'condition': {
      const condition = compile(n.condition, compiler);
      const then = compile(n.then, compiler);
      const otherwise = n.else === undefined ? undefined : compile(n.else, compiler);
      return (scope) => (truthOf(condition(scope)) ? then(scope) : otherwise?.(scope));
    }
    case 'block': {
      // `( a; b )` answers b, but a still runs: it may be the one JSONata fails on.
      if (!Array.isArray(n.expressions) || n.expressions.length === 0) out();
      const parts = n.expressions.map((e) => compile(e, compiler));
      if (parts.length === 1) return parts[0]!;
      return (scope) => {
        let result: unknown;
        for (const part of parts) result = part(scope);
        return result;
      };
    }
    case 'function':
      return compileCall(n, compiler);
    default:
      return out();
  }
}

/**
 * `a.b.c`, `$params.Name`, `$.a`, `$$.a`: a first step (a field of the input or a variable), then
 * fields. An array anywhere defers: JSONata would map over it and flatten.
 */
function compilePath(n: Node, _compiler: Compiler): Compiled {
  if (!Array.isArray(n.steps) || n.steps.length === 0) out();
  const steps = n.steps.map((s) => node(s));
  const [first, ...rest] = steps;
  const names = rest.map((step) => (step.type === 'name' && typeof step.value === 'string' ? step.value : out()));
  let start: Compiled;
  if (first!.type === 'variable') {
    start = compileVariable(first!);
  } else if (first!.type === 'name' && typeof first!.value === 'string') {
    const name = first!.value;
    start = (scope) => lookup(scope.input, name);
  } else {
    return out();
  }
  if (names.length === 0) return (scope) => settled(start(scope));
  return (scope) => {
    let value = start(scope);
    for (const name of names) {
      if (value === undefined) return undefined;
      value = lookup(value, name);
    }
    return settled(value);
  };
}

function settled(value: unknown): unknown {
  if (Array.isArray(value)) throw DEFER;
  return value;
}

/**
 * `$name` reads the caller's bindings (own enumerable keys, as JSONata binds them); `$` and `$$`
 * the input. Names JSONata itself binds (its functions) are out: their value is a function.
 */
function compileVariable(n: Node): Compiled {
  const name = n.value;
  if (typeof name !== 'string') return out();
  if (name === '' || name === '$') return (scope) => settled(scope.input);
  if (builtinNames.has(name)) out();
  return (scope) => {
    const bindings = scope.bindings;
    return bindings !== undefined && Object.prototype.propertyIsEnumerable.call(bindings, name)
      ? settled((bindings as Record<string, unknown>)[name])
      : undefined;
  };
}

function compileNegation(n: Node, compiler: Compiler): Compiled {
  const operand = compile(n.expression, compiler);
  return (scope) => {
    const value = operand(scope);
    if (!isArithmeticOperand(value)) throw DEFER;
    return value === undefined ? undefined : -value;
  };
}

const arithmetic: Readonly<Record<string, (a: number, b: number) => number>> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '%': (a, b) => a % b,
};

const ordering: Readonly<Record<string, (a: string | number, b: string | number) => boolean>> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

function isOrderable(value: unknown): value is string | number | undefined {
  return value === undefined || typeof value === 'string' || typeof value === 'number';
}

function compileBinary(n: Node, compiler: Compiler): Compiled {
  const op = n.value;
  if (typeof op !== 'string') return out();
  const lhs = compile(n.lhs, compiler);
  const rhs = compile(n.rhs, compiler);
  if (Object.hasOwn(arithmetic, op)) {
    const apply = arithmetic[op]!;
    return (scope) => {
      const a = lhs(scope);
      const b = rhs(scope);
      if (!isArithmeticOperand(a) || !isArithmeticOperand(b)) throw DEFER;
      return a === undefined || b === undefined ? undefined : apply(a, b);
    };
  }
  if (Object.hasOwn(ordering, op)) {
    const apply = ordering[op]!;
    return (scope) => {
      const a = lhs(scope);
      const b = rhs(scope);
      if (!isOrderable(a) || !isOrderable(b)) throw DEFER;
      if (a === undefined || b === undefined) return undefined;
      if (typeof a !== typeof b) throw DEFER;
      return apply(a, b);
    };
  }
  switch (op) {
    case '&':
      return (scope) => {
        const a = lhs(scope);
        const b = rhs(scope);
        return (a === undefined ? '' : textOf(a)) + (b === undefined ? '' : textOf(b));
      };
    case '=':
    case '!=': {
      const equal = op === '=';
      return (scope) => {
        const a = lhs(scope);
        const b = rhs(scope);
        if (a === undefined || b === undefined) return false;
        if (!isPlainPrimitive(a) || !isPlainPrimitive(b)) throw DEFER;
        return (a === b) === equal;
      };
    }
    case 'and':
      return (scope) => truthOf(lhs(scope)) && truthOf(rhs(scope));
    case 'or':
      return (scope) => truthOf(lhs(scope)) || truthOf(rhs(scope));
    default:
      return out();
  }
}

/**
 * `{ "key": value, ... }` over the input itself. A null-prototype object like JSONata's; keys
 * whose value is undefined are left out. Two pairs with one key are JSONata's D1009 error, and
 * its reserved keys its D1013: both stay JSONata's.
 */
function compileObject(n: Node, compiler: Compiler): Compiled {
  if (!Array.isArray(n.lhs)) return out();
  const seen = new Set<string>();
  const pairs = n.lhs.map((pair: unknown) => {
    if (!Array.isArray(pair) || pair.length !== 2) out();
    const key = node(pair[0]);
    if (key.type !== 'string' || typeof key.value !== 'string') out();
    const name = key.value;
    if (seen.has(name) || name === '_jsonata_lambda' || name === '_jsonata_function') out();
    seen.add(name);
    return { name, value: compile(pair[1], compiler) };
  });
  return (scope) => {
    const result = Object.create(null) as Record<string, unknown>;
    for (const pair of pairs) {
      const value = pair.value(scope);
      if (value !== undefined) result[pair.name] = value;
    }
    return result;
  };
}

/** `$name(args)` for a function of the table, with as many arguments as it takes. */
function compileCall(n: Node, compiler: Compiler): Compiled {
  const procedure = node(n.procedure);
  if (procedure.type !== 'variable' || typeof procedure.value !== 'string' || !Array.isArray(n.arguments)) return out();
  const name = procedure.value;
  const fn = Object.hasOwn(mappingFunctions, name) ? mappingFunctions[name] : undefined;
  if (fn === undefined || n.arguments.length < fn.min || n.arguments.length > fn.max) return out();
  compiler.functions.add(name);
  const args = n.arguments.map((a) => compile(a, compiler));
  const call = fn.call;
  switch (args.length) {
    case 0:
      return (scope) => call(scope, undefined, undefined, undefined);
    case 1: {
      const [a] = args as [Compiled];
      return (scope) => call(scope, a(scope), undefined, undefined);
    }
    case 2: {
      const [a, b] = args as [Compiled, Compiled];
      return (scope) => call(scope, a(scope), b(scope), undefined);
    }
    default: {
      const [a, b, c] = args as [Compiled, Compiled, Compiled];
      return (scope) => call(scope, a(scope), b(scope), c(scope));
    }
  }
}
