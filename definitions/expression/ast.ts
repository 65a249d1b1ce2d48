/**
 * The expression AST: plain, JSON-serialisable data (no classes, no functions), because the same
 * tree is evaluated in JS, compiled to Knex queries with bound parameters and to OData `$filter`.
 *
 * Every node carries `start` and `end`: 0-based offsets into the parsed source, `end` exclusive.
 * A node's range covers its own text; parentheses around it are not part of it.
 *
 * Values and conditions are distinct in the types: comparison operands, LIKE patterns, IN lists and
 * function arguments are always values, so a compiler never meets `(a = 1) = true`. A value is
 * still accepted where a condition is expected (a "truthy test", see `evaluateCondition`).
 */

import { FUNCTIONS } from './functions.js';

export interface NodeRange {
  /** 0-based offset of the node's first character. */
  start: number;
  /** 0-based offset just past the node's last character. */
  end: number;
}

export type LiteralType = 'string' | 'number' | 'boolean' | 'null' | 'date' | 'datetime';

/**
 * A literal. Dates keep their ISO text: `date` is `YYYY-MM-DD`, `datetime` is
 * `YYYY-MM-DDTHH:MM[:SS[.fraction]][Z|±HH:MM]` (a space separator in `TIMESTAMP '…'` becomes `T`).
 * Numbers are always finite.
 */
export type LiteralNode = NodeRange & { type: 'literal' } & (
    | { literalType: 'string'; value: string }
    | { literalType: 'number'; value: number }
    | { literalType: 'boolean'; value: boolean }
    | { literalType: 'null'; value: null }
    | { literalType: 'date'; value: string }
    | { literalType: 'datetime'; value: string }
  );

/** A field of the record being filtered: `address.city`, `address/city`, `"Order Date"`, `[Order Date]`. */
export interface FieldNode extends NodeRange {
  type: 'field';
  /** Path segments, unquoted, never empty. */
  path: string[];
}

/** A value supplied from outside the record, e.g. request data: `#Email#`, `#customer.address.city#`. */
export interface PlaceholderNode extends NodeRange {
  type: 'placeholder';
  path: string[];
}

/** OData string predicates; both arguments are values, the result is a condition. */
export type PredicateFunctionName = 'contains' | 'startswith' | 'endswith';
/** Functions that produce a value. */
export type ValueFunctionName = 'tolower' | 'toupper' | 'trim' | 'length';
export type FunctionName = PredicateFunctionName | ValueFunctionName;

export interface PredicateCallNode extends NodeRange {
  type: 'call';
  /** Always lower case, whatever the source spelling. */
  name: PredicateFunctionName;
  args: ValueExpression[];
}

export interface ValueCallNode extends NodeRange {
  type: 'call';
  name: ValueFunctionName;
  args: ValueExpression[];
}

export type CompareOperator = '=' | '<>' | '<' | '<=' | '>' | '>=';

/** `left op right`; `!=`, `eq`, `ne`, `lt`, `le`, `gt`, `ge` are normalised to the symbols. */
export interface CompareNode extends NodeRange {
  type: 'compare';
  op: CompareOperator;
  left: ValueExpression;
  right: ValueExpression;
}

/** `value [NOT] LIKE pattern [ESCAPE 'c']`; `%` is any run of characters, `_` exactly one. */
export interface LikeNode extends NodeRange {
  type: 'like';
  negated: boolean;
  value: ValueExpression;
  pattern: ValueExpression;
  /** The single escape character of an `ESCAPE` clause, or null when there is none. */
  escape: string | null;
}

/** `value [NOT] IN (v1, v2, …)`; the list is never empty. */
export interface InNode extends NodeRange {
  type: 'in';
  negated: boolean;
  value: ValueExpression;
  list: ValueExpression[];
}

/** `value IS [NOT] NULL`. */
export interface IsNullNode extends NodeRange {
  type: 'isNull';
  negated: boolean;
  value: ValueExpression;
}

/** `value [NOT] BETWEEN low AND high` (inclusive at both ends). */
export interface BetweenNode extends NodeRange {
  type: 'between';
  negated: boolean;
  value: ValueExpression;
  low: ValueExpression;
  high: ValueExpression;
}

/**
 * `a AND b AND c` is one node with three operands. Only an unparenthesised chain is flattened:
 * `(a AND b) AND c` keeps its inner node, so formatting and re-parsing gives the same tree.
 */
export interface AndNode extends NodeRange {
  type: 'and';
  /** At least two operands. */
  operands: Expression[];
}

export interface OrNode extends NodeRange {
  type: 'or';
  /** At least two operands. */
  operands: Expression[];
}

export interface NotNode extends NodeRange {
  type: 'not';
  operand: Expression;
}

/** Nodes that produce a value. */
export type ValueExpression = LiteralNode | FieldNode | PlaceholderNode | ValueCallNode;

/** Nodes that produce a truth value. */
export type PredicateExpression =
  | AndNode
  | OrNode
  | NotNode
  | CompareNode
  | LikeNode
  | InNode
  | IsNullNode
  | BetweenNode
  | PredicateCallNode;

/** Any parsed expression. A bare value at condition level is a truthy test. */
export type Expression = PredicateExpression | ValueExpression;

/** True for nodes that produce a value rather than a truth value. */
export function isValueExpression(node: Expression): node is ValueExpression {
  switch (node.type) {
    case 'literal':
    case 'field':
    case 'placeholder':
      return true;
    case 'call':
      return FUNCTIONS[node.name].returns === 'value';
    default:
      return false;
  }
}
