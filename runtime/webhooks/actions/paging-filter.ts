/**
 * The filter a readQueryWithSystem caller sends in the request property `paging.filterParam` names
 * (the seed's "optional filter property" of paging, next to pageSize and offset).
 *
 * Its value is a filter in our expression language (`city = 'Porto' AND score >= 5`), parsed here
 * into an AST — never text spliced into SQL: the connector compiles the AST with every literal
 * bound. It may name only the columns the query declares (its `columns`, what the caller gets
 * back), by those exact names, and holds no placeholders (it is the request's own data already).
 * It is AND-ed with the webhook's configured queryFilter, so it can only narrow the result:
 * leaving it out, sending an empty string, `1=1` or `' OR 1=1 --` never widens it. A value that
 * does not parse, is not text, names another column, holds a placeholder or is a value where a
 * condition belongs (`4` for `id = 4`, which would narrow nothing) is a 400 naming the property.
 *
 * Why an expression rather than a value bound to a placeholder of the queryFilter: a placeholder
 * already carries a value from any request property, so a filterParam meaning the same would add
 * nothing; what paging callers (list views with a search box) need is a filter of their own over
 * the columns they page through. The filter stands where `#FlowFilter#` stands, so its names are
 * resolved there: a query offering it declares columns under the names its WHERE knows them by
 * (wrapping a join or computed columns as `SELECT * FROM (…) AS q WHERE #FlowFilter#` does that).
 */
import type { FieldType, WebhookDefinition } from '../../../definitions/types.js';
import { HttpProblem } from '../../errors.js';
import {
  collectFields,
  collectPlaceholders,
  ExpressionSyntaxError,
  parseExpression,
  valueAsCondition,
  valueAsConditionProblem,
  type Expression,
} from '../../../definitions/expression/index.js';
import type { WebhookRequest } from '../webhook-call.js';
import { requestValue } from './paging-request.js';

type Paging = NonNullable<WebhookDefinition['paging']>;

/** The caller's filter, checked against the query's columns; undefined when the request sends none. */
export function pagingFilter(
  paging: Paging | undefined,
  columns: ReadonlyArray<{ name: string; type: FieldType }>,
  request: WebhookRequest,
  label: string,
): Expression | undefined {
  const name = paging?.filterParam;
  if (name === undefined) return undefined;
  const found = requestValue(request, name);
  if (found === undefined) return undefined;
  const { value, path } = found;
  const refuse = (message: string): never => {
    throw new HttpProblem('invalid-request', message, { errors: [{ path, message }] });
  };
  if (typeof value !== 'string')
    refuse(
      `${name} must be text holding a filter such as "city = 'Porto'", not ${Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `a ${typeof value}`}.`,
    );
  const text = value as string;
  if (text.trim() === '') return undefined;
  let filter: Expression;
  try {
    filter = parseExpression(text);
  } catch (error) {
    if (!(error instanceof ExpressionSyntaxError)) throw error;
    return refuse(`${name}, column ${error.column}: ${error.message}`);
  }
  const placeholder = collectPlaceholders(filter)[0];
  if (placeholder !== undefined)
    refuse(`${name}, column ${placeholder.start + 1}: #${placeholder.path.join('.')}# is a placeholder; write the value itself.`);
  const known = columns.map((column) => column.name);
  for (const field of collectFields(filter)) {
    if (field.path.length !== 1 || !known.includes(field.path[0]!)) {
      refuse(
        `${name}, column ${field.start + 1}: query ${label} has no column '${field.path.join('.')}'; it may name ${known.join(', ')}.`,
      );
    }
  }
  const typeOf = (path: readonly string[]) => columns.find((column) => column.name === path[0])?.type;
  const bare = valueAsCondition(filter, typeOf);
  if (bare !== undefined) refuse(`${name}, column ${bare.start + 1}: ${valueAsConditionProblem(bare, typeOf)}.`);
  return filter;
}
