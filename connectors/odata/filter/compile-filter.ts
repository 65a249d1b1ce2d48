/**
 * Compiles an expression AST into a `$filter` that selects exactly what the JS evaluator
 * (definitions/expression/evaluate.ts) selects: three-valued logic on a two-valued service (each
 * predicate is a pair of conditions, filter-condition.ts), `x = null` as `x eq null`, a missing
 * placeholder as an unknown comparison, case-sensitive text, numeric text against numbers, dates
 * as instants (compare-field.ts), LIKE as OData's string functions (string-match.ts).
 *
 * Parts of the filter that name no field (`#total# > 0`, `'a' = 'a'`) are evaluated here with the
 * evaluator itself and become a constant; only conditions on fields reach the service, with every
 * constant written as a literal — quoted and escaped, never spliced. Field paths are resolved by the
 * caller (`FilterScope.field`), which checks them against the declared fields.
 *
 * The result is the condition for the records the filter holds for. When it is not exact (a
 * relaxed value: `tolower`, `toupper`, `trim`, a String field as a truth value), it selects a
 * superset and the reader checks each record again with the evaluator.
 */
import type { CompareOperator, Expression, ValueCallNode, ValueExpression } from '../../../definitions/expression/index.js';
import { collectFields, evaluateTruth, type EvaluationScope } from '../../../definitions/expression/index.js';
import { evaluateValue } from '../../../definitions/expression/evaluate.js';
import { textOf } from '../../../definitions/expression/compare-values.js';
import type { PlaceholderValues } from '../../connection.js';
import { compareFields, compareWithConstant, flip } from './compare-field.js';
import {
  and,
  andPairs,
  atom,
  FALSE,
  FALSE_PAIR,
  inexactPair,
  notPair,
  orPairs,
  TRUE,
  TRUE_PAIR,
  UNKNOWN_PAIR,
  type Condition,
  type Pair,
} from './filter-condition.js';
import { notNull, nullPair, unsupported, withinPair, type FieldRef, type Operand } from './filter-operand.js';
import { likeShape, matchPair, predicateShape, type MatchShape } from './string-match.js';

export interface FilterScope {
  /** The field a path names; throws ConnectorError('unknown-field') for an undeclared one. */
  field(path: readonly string[]): FieldRef;
  placeholders?: PlaceholderValues;
}

/** The condition selecting the records the filter holds for (a superset when not `exact`). */
export function compileFilter(ast: Expression, scope: FilterScope): Condition {
  return new FilterCompiler(scope).predicate(ast).holds;
}

/** The pair of a filter, for tests of its NOT. */
export function compilePair(ast: Expression, scope: FilterScope): Pair {
  return new FilterCompiler(scope).predicate(ast);
}

function isNullLiteral(node: ValueExpression): boolean {
  return node.type === 'literal' && node.literalType === 'null';
}

/** Nothing is selected by the service; the evaluator decides among the records where `base` has a value. */
function relaxedPair(operands: readonly Operand[]): Pair {
  if (operands.some((operand) => operand.kind === 'relaxed' && operand.textless)) return UNKNOWN_PAIR;
  const present: Condition[] = [];
  for (const operand of operands) {
    if (operand.kind === 'relaxed') present.push(notNull(operand.base));
    else if (operand.kind === 'field') present.push(notNull(operand.ref));
  }
  const pair = andPairs(present.map((condition) => ({ holds: condition, fails: condition })));
  return inexactPair(pair);
}

class FilterCompiler {
  private readonly constants: EvaluationScope;

  constructor(private readonly scope: FilterScope) {
    const placeholders = scope.placeholders;
    this.constants = { field: () => undefined, placeholder: (path) => (placeholders === undefined ? undefined : placeholders(path)) };
  }

  predicate(node: Expression): Pair {
    if (collectFields(node).length === 0) {
      const truth = evaluateTruth(node, this.constants);
      return truth === true ? TRUE_PAIR : truth === false ? FALSE_PAIR : UNKNOWN_PAIR;
    }
    switch (node.type) {
      case 'and':
        return andPairs(node.operands.map((operand) => this.predicate(operand)));
      case 'or':
        return orPairs(node.operands.map((operand) => this.predicate(operand)));
      case 'not':
        return notPair(this.predicate(node.operand));
      case 'compare':
        return this.compare(node.op, node.left, node.right);
      case 'between': {
        const range = andPairs([this.compare('>=', node.value, node.low), this.compare('<=', node.value, node.high)]);
        return node.negated ? notPair(range) : range;
      }
      case 'in': {
        const any = orPairs(node.list.map((item) => this.compare('=', node.value, item)));
        return node.negated ? notPair(any) : any;
      }
      case 'isNull': {
        const pair = this.nullOf(this.operand(node.value));
        return node.negated ? notPair(pair) : pair;
      }
      case 'like': {
        const pattern = this.operand(node.pattern);
        if (pattern.kind !== 'constant') throw unsupported('a LIKE pattern taken from a field');
        const patternText = textOf(pattern.value);
        if (patternText === null) return UNKNOWN_PAIR;
        const matched = this.match(this.operand(node.value), likeShape(patternText, node.escape), 'LIKE');
        return node.negated ? notPair(matched) : matched;
      }
      case 'call':
        if (node.name === 'contains' || node.name === 'startswith' || node.name === 'endswith') {
          const part = this.operand(node.args[1]!);
          if (part.kind !== 'constant') throw unsupported(`${node.name}() with a field as its second argument`);
          const partText = textOf(part.value);
          if (partText === null) return UNKNOWN_PAIR;
          return this.match(this.operand(node.args[0]!), predicateShape(node.name, partText), `${node.name}()`);
        }
        return this.truthOf(this.operand(node as ValueCallNode));
      default:
        return this.truthOf(this.operand(node));
    }
  }

  /** A comparison, with the evaluator's rule for the literal null on either side. */
  private compare(op: CompareOperator, leftNode: ValueExpression, rightNode: ValueExpression): Pair {
    const nullLeft = isNullLiteral(leftNode);
    if (nullLeft || isNullLiteral(rightNode)) {
      if (op !== '=' && op !== '<>') return UNKNOWN_PAIR;
      const pair = this.nullOf(this.operand(nullLeft ? rightNode : leftNode));
      return op === '=' ? pair : notPair(pair);
    }
    const left = this.operand(leftNode);
    const right = this.operand(rightNode);
    if (left.kind === 'relaxed' || right.kind === 'relaxed') return this.relaxed([left, right]);
    if (left.kind === 'field' && right.kind === 'field') return compareFields(left.ref, op, right.ref);
    if (left.kind === 'field' && right.kind === 'constant') return compareWithConstant(left.ref, op, right.value);
    if (left.kind === 'constant' && right.kind === 'field') return compareWithConstant(right.ref, flip(op), left.value);
    return this.predicate({ type: 'compare', op, left: leftNode, right: rightNode, start: 0, end: 0 });
  }

  /** A comparison involving a relaxed value: unknown against null, otherwise left to the evaluator. */
  private relaxed(operands: readonly Operand[]): Pair {
    for (const operand of operands) {
      if (operand.kind === 'constant' && (operand.value === null || operand.value === undefined)) return UNKNOWN_PAIR;
      if (operand.kind === 'field' && operand.ref.type === 'Json')
        throw unsupported(`a comparison with the Json field '${operand.ref.label}'`);
    }
    return relaxedPair(operands);
  }

  /** `value IS NULL`. */
  private nullOf(operand: Operand): Pair {
    switch (operand.kind) {
      case 'constant':
        return operand.value === null || operand.value === undefined ? TRUE_PAIR : FALSE_PAIR;
      case 'field':
        return nullPair(operand.ref);
      case 'relaxed':
        // A function of a value without text is null; of any other value, null exactly when the value is.
        if (operand.textless) return TRUE_PAIR;
        if (operand.base.type === 'Json') return inexactPair({ holds: TRUE, fails: notNull(operand.base) });
        return nullPair(operand.base);
    }
  }

  private match(operand: Operand, shape: MatchShape, construct: string): Pair {
    switch (operand.kind) {
      case 'constant':
        // Folded before it gets here: a constant subject makes the predicate name no field.
        return UNKNOWN_PAIR;
      case 'field':
        return matchPair(operand.ref, shape, construct);
      case 'relaxed':
        return relaxedPair([operand]);
    }
  }

  /** A value as a condition: booleans as themselves, numbers true unless 0, text by the evaluator. */
  private truthOf(operand: Operand): Pair {
    if (operand.kind === 'relaxed') return relaxedPair([operand]);
    if (operand.kind === 'constant') return UNKNOWN_PAIR;
    const ref = operand.ref;
    switch (ref.type) {
      case 'Boolean':
        return withinPair(ref.entry, { holds: atom(`${ref.path} eq true`), fails: atom(`${ref.path} eq false`) });
      case 'Integer':
      case 'Number':
        return withinPair(ref.entry, {
          holds: and([atom(`${ref.nullPath} ne null`), atom(`${ref.path} ne 0`)]),
          fails: atom(`${ref.path} eq 0`),
        });
      case 'Date':
      case 'DateTime':
        // Records hold them as ISO text, which is never empty, 'false' or '0'.
        return { holds: notNull(ref), fails: FALSE };
      case 'String':
        // Empty, 'false' and '0' in any case and with any surrounding space are false: the evaluator decides.
        return relaxedPair([operand]);
      case 'Json':
        throw unsupported(`the Json field '${ref.label}' as a condition`);
    }
  }

  private operand(node: ValueExpression): Operand {
    if (collectFields(node).length === 0) return { kind: 'constant', value: evaluateValue(node, this.constants) };
    switch (node.type) {
      case 'field':
        return { kind: 'field', ref: this.scope.field(node.path) };
      case 'call': {
        const argument = this.operand(node.args[0]!);
        const base = argument.kind === 'field' ? argument.ref : argument.kind === 'relaxed' ? argument.base : undefined;
        if (base === undefined) throw unsupported(`${node.name}() of a constant`);
        const label = `${node.name}(${argument.kind === 'relaxed' ? argument.label : base.label})`;
        const textless = base.type === 'Boolean' || (argument.kind === 'relaxed' && argument.textless);
        // length() of a String field is OData's own; everything else is the evaluator's to compute.
        if (node.name === 'length' && argument.kind === 'field' && base.type === 'String' && base.edm === 'text') {
          return {
            kind: 'field',
            ref: { ...base, path: `length(${base.path})`, type: 'Integer', edm: 'integer', label },
          };
        }
        return { kind: 'relaxed', base, label, textless };
      }
    }
    // Literals and placeholders never name a field, so they were constants above.
    throw unsupported(`the value at ${node.start}`);
  }
}
