/**
 * Compiles an expression AST into a SQL predicate with bound values, agreeing with the JS
 * evaluator (definitions/expression/evaluate.ts) on every record: three-valued logic, `x = null` as
 * `x IS NULL`, a missing placeholder as an unknown comparison, case-sensitive LIKE and string
 * predicates, numeric strings against numbers, dates as instants.
 *
 * Parts of the filter that name no field (`#total# > 0`, `'a' = 'a'`) are evaluated here with the
 * evaluator itself and become a constant true, false or unknown; only comparisons involving fields
 * reach the database. Field paths are resolved by the caller (`FilterScope.column`), which
 * checks them against the declared fields — a request can never name a column of its own.
 */
import type { Expression, ValueCallNode, ValueExpression } from '../../definitions/expression/index.js';
import { collectFields, evaluateTruth, type EvaluationScope } from '../../definitions/expression/index.js';
import { evaluateValue } from '../../definitions/expression/evaluate.js';
import { textOf } from '../../definitions/expression/compare-values.js';
import type { PlaceholderValues } from '../connection.js';
import { compareColumns, compareWithConstant, equalsAny, flip } from './compare-column.js';
import { likePredicate, parseLikePattern, predicateTokens } from './compile-like.js';
import { classOf, unsupported, type ColumnOperand, type Operand } from './filter-operand.js';
import type { Engine } from './engines/index.js';
import { textForm } from './sql-dialect.js';
import { and, FALSE, not, or, sql, text, TRUE, trueUnlessNull, UNKNOWN, value, type SqlFragment } from './sql-fragment.js';

export interface FilterScope {
  engine: Engine;
  /** The column a field path stands for; throws ConnectorError('unknown-field') for an undeclared one. */
  column(path: readonly string[]): ColumnOperand;
  placeholders?: PlaceholderValues;
}

export function compileFilter(ast: Expression, scope: FilterScope): SqlFragment {
  return new FilterCompiler(scope).predicate(ast);
}

type CompareNodeOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

class FilterCompiler {
  private readonly engine: Engine;
  private readonly constants: EvaluationScope;

  constructor(private readonly scope: FilterScope) {
    this.engine = scope.engine;
    const placeholders = scope.placeholders;
    this.constants = {
      field: () => undefined,
      placeholder: (path) => (placeholders === undefined ? undefined : placeholders(path)),
    };
  }

  predicate(node: Expression): SqlFragment {
    if (collectFields(node).length === 0) {
      const truth = evaluateTruth(node, this.constants);
      return truth === true ? TRUE : truth === false ? FALSE : UNKNOWN;
    }
    switch (node.type) {
      case 'and':
        return and(node.operands.map((operand) => this.predicate(operand)));
      case 'or':
        return or(node.operands.map((operand) => this.predicate(operand)));
      case 'not':
        return not(this.predicate(node.operand));
      case 'compare':
        return this.compare(node.op, node.left, node.right);
      case 'between': {
        const range = and([this.compare('>=', node.value, node.low), this.compare('<=', node.value, node.high)]);
        return node.negated ? not(range) : range;
      }
      case 'in': {
        const any = this.in(node.value, node.list);
        return node.negated ? not(any) : any;
      }
      case 'isNull': {
        const operand = this.operand(node.value) as ColumnOperand;
        return sql`(${operand.sql} ${text(node.negated ? 'IS NOT NULL' : 'IS NULL')})`;
      }
      case 'like': {
        const subject = this.textOf(this.operand(node.value), 'LIKE');
        const pattern = this.operand(node.pattern);
        if (pattern.kind !== 'constant') throw unsupported('a LIKE pattern taken from a field');
        const patternText = textOf(pattern.value);
        if (patternText === null) return UNKNOWN;
        const matched = likePredicate(this.engine, subject, parseLikePattern(patternText, node.escape));
        return node.negated ? not(matched) : matched;
      }
      case 'call':
        if (node.name === 'contains' || node.name === 'startswith' || node.name === 'endswith') {
          const subject = this.operand(node.args[0]!);
          const part = this.operand(node.args[1]!);
          if (subject.kind !== 'column' || part.kind !== 'constant')
            throw unsupported(`${node.name}() with a field as its second argument`);
          const partText = textOf(part.value);
          if (partText === null) return UNKNOWN;
          return likePredicate(this.engine, this.textOf(subject, `${node.name}()`), predicateTokens(node.name, partText));
        }
        return this.truthOf(this.operand(node as ValueCallNode) as ColumnOperand);
      default:
        return this.truthOf(this.operand(node) as ColumnOperand);
    }
  }

  /** A comparison, with the evaluator's rule for the literal null on either side. */
  private compare(op: CompareNodeOp, leftNode: ValueExpression, rightNode: ValueExpression): SqlFragment {
    const nullLeft = isNullLiteral(leftNode);
    if (nullLeft || isNullLiteral(rightNode)) {
      if (op !== '=' && op !== '<>') return UNKNOWN;
      const other = this.operand(nullLeft ? rightNode : leftNode);
      if (other.kind === 'constant') return (other.value === null || other.value === undefined) === (op === '=') ? TRUE : FALSE;
      return sql`(${other.sql} ${text(op === '=' ? 'IS NULL' : 'IS NOT NULL')})`;
    }
    const left = this.operand(leftNode);
    const right = this.operand(rightNode);
    if (left.kind === 'column' && right.kind === 'column') return compareColumns(this.engine, left, op, right);
    if (left.kind === 'column' && right.kind === 'constant') return compareWithConstant(this.engine, left, op, right.value);
    if (left.kind === 'constant' && right.kind === 'column') return compareWithConstant(this.engine, right, flip(op), left.value);
    return this.predicate({ type: 'compare', op, left: leftNode, right: rightNode, start: 0, end: 0 });
  }

  private in(valueNode: ValueExpression, list: readonly ValueExpression[]): SqlFragment {
    const subject = this.operand(valueNode);
    const constants: unknown[] = [];
    const rest: SqlFragment[] = [];
    for (const item of list) {
      const operand = isNullLiteral(item) ? null : this.operand(item);
      if (subject.kind === 'column' && operand?.kind === 'constant') constants.push(operand.value);
      else rest.push(this.compare('=', valueNode, item));
    }
    const listed = subject.kind === 'column' && constants.length > 0 ? [equalsAny(this.engine, subject, constants)] : [];
    return or([...listed, ...rest]);
  }

  private operand(node: ValueExpression): Operand {
    if (collectFields(node).length === 0) return { kind: 'constant', value: evaluateValue(node, this.constants) };
    switch (node.type) {
      case 'field':
        return this.scope.column(node.path);
      case 'call': {
        const argument = this.operand(node.args[0]!) as ColumnOperand;
        const label = `${node.name}(${argument.label})`;
        const argumentText = this.textOf(argument, `${node.name}()`);
        switch (node.name) {
          case 'tolower':
            return { kind: 'column', sql: sql`LOWER(${argumentText})`, type: 'String', label };
          case 'toupper':
            return { kind: 'column', sql: sql`UPPER(${argumentText})`, type: 'String', label };
          case 'trim':
            return { kind: 'column', sql: this.engine.jsTrim(argumentText), type: 'String', label };
          case 'length':
            return { kind: 'column', sql: this.engine.charLength(argumentText), type: 'Integer', label };
        }
      }
    }
    // Literals and placeholders never name a field, so they were constants above.
    throw unsupported(`the value at ${node.start}`);
  }

  /** The text a column has for LIKE and string functions; none (NULL) for booleans, as in the evaluator. */
  private textOf(operand: Operand, construct: string): SqlFragment {
    if (operand.kind === 'constant') {
      const constant = textOf(operand.value);
      return constant === null ? this.engine.castText(text('NULL')) : value(constant);
    }
    if (operand.type === 'Json') throw unsupported(`${construct} on the Json field '${operand.label}'`);
    if (operand.type === undefined) return this.engine.castText(operand.sql);
    return textForm(this.engine, operand.type, operand.sql) ?? this.engine.castText(text('NULL'));
  }

  /** A bare value used as a condition (`active`, `tolower(name)`), as the evaluator's `truthOf`. */
  private truthOf(column: ColumnOperand): SqlFragment {
    switch (classOf(column.type)) {
      case 'boolean':
        // true is true; in SQLite and MariaDB a boolean is a number, and any but 0 reads as true.
        return this.engine.isTrue(column.sql);
      case 'number':
        return sql`(${column.sql} <> 0)`;
      case 'text': {
        const word: ColumnOperand = { ...column, sql: sql`LOWER(${this.engine.jsTrim(column.sql)})` };
        return not(equalsAny(this.engine, word, ['', 'false', '0']));
      }
      case 'date':
      case 'datetime':
        return trueUnlessNull(column.sql);
      default:
        throw unsupported(`the field '${column.label}' used as a condition`);
    }
  }
}

function isNullLiteral(node: ValueExpression): boolean {
  return node.type === 'literal' && node.literalType === 'null';
}
