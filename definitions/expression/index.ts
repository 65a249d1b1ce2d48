/**
 * The one expression language of Syncline: filters (`GETDATA_WHERE`, sync `where`, record
 * searches, query filters), conditions (webhook execution conditions, sync preconditions) and
 * match searches all parse here into one AST, which is then evaluated in JS or compiled for a
 * connector.
 */

export type {
  AndNode,
  BetweenNode,
  CompareNode,
  CompareOperator,
  Expression,
  FieldNode,
  FunctionName,
  InNode,
  IsNullNode,
  LikeNode,
  LiteralNode,
  LiteralType,
  NodeRange,
  NotNode,
  OrNode,
  PlaceholderNode,
  PredicateCallNode,
  PredicateExpression,
  PredicateFunctionName,
  ValueCallNode,
  ValueExpression,
  ValueFunctionName,
} from './ast.js';
export { isValueExpression } from './ast.js';
export { FUNCTION_NAMES } from './functions.js';
export { MAX_EXPRESSION_LENGTH, MAX_JOINED_CONDITIONS, MAX_NESTING_DEPTH, parseExpression } from './parser.js';
export { ExpressionSyntaxError, type ExpressionError } from './syntax-error.js';
export { collectFields, collectPlaceholders, childrenOf, walkExpression, type PathReference } from './walk.js';
export { evaluateCondition, evaluateTruth, evaluateValue } from './evaluate.js';
export { recordScope, resolvePath, type EvaluationScope } from './evaluation-scope.js';
export {
  booleanFrom,
  compareExact,
  compareValues,
  doubleHolds,
  type ExactDecimal,
  exactDecimal,
  exactDecimalKey,
  holdsForOrder,
  numberFromText,
  roundedInteger,
  type Truth,
} from './compare-values.js';
export { formatExpression } from './format.js';
export { likeMatches } from './like-pattern.js';
export { valueAsCondition, valueAsConditionProblem } from './value-as-condition.js';
