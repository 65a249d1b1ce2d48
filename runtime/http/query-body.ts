/**
 * The body of RunConnectionGetQueryData, a free query: the statement in the system's language,
 * the columns of its result with their types, an optional count statement and a page (Limit,
 * Skip). Declared as a JSON Schema (body-schema.ts), which the interface description publishes;
 * property names and column types are matched in any case. The statement is the system's to run
 * read-only: nothing here looks into it.
 */
import type { FieldType } from '../../definitions/types.js';
import { fieldTypes } from '../../definitions/types.js';
import { describe, notBlank } from './body-messages.js';
import { requestBody, type Finding } from './body-schema.js';
import { invalid } from './read-parameters.js';
import { maxColumns } from './write-body.js';

export interface QueryBody {
  statement: string;
  countStatement?: string;
  columns: Array<{ name: string; type: FieldType }>;
  limit?: number;
  skip?: number;
}

export const queryColumnSchema = {
  type: 'object',
  required: ['Name', 'ColumnType'],
  properties: {
    Name: { type: 'string', pattern: notBlank, description: 'A column of the result.' },
    ColumnType: { enum: [...fieldTypes], description: 'Its type (any case): each row holds it converted to this type.' },
  },
  additionalProperties: false,
};

/** A whole number, or its digits as text (what form-minded clients send); never past what a double holds exactly. */
const paging = (description: string) => ({
  anyOf: [
    { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    { type: 'string', pattern: '^\\s*\\d{1,15}\\s*$' },
  ],
  description,
});

export const queryBody = requestBody<{
  columns: Array<{ Name: string; ColumnType: FieldType }>;
  Statement: string;
  CountStatement?: string | null;
  Limit?: number | string | null;
  Skip?: number | string | null;
}>(
  {
    type: 'object',
    required: ['columns', 'Statement'],
    properties: {
      columns: { type: 'array', minItems: 1, maxItems: maxColumns, items: queryColumnSchema },
      Statement: { type: 'string', pattern: notBlank, description: 'Read-only statement in the system language.' },
      CountStatement: { type: ['string', 'null'], pattern: notBlank, description: 'Statement returning the total number of rows.' },
      Limit: paging("Most rows to answer (a page); at most the system's limits.queryRows."),
      Skip: paging('Rows to pass over first; order the statement (ORDER BY) so pages do not overlap.'),
    },
    additionalProperties: false,
  },
  { message: queryMessage },
);

/** What the route has always said, where it says more than the schema's words. */
function queryMessage({ path, value, body, message, keyword }: Finding): string {
  if (path === '')
    return `The body must be an object {"columns": [...], "Statement": "...", "CountStatement": "...", "Limit": n, "Skip": n}, not ${describe(value)}.`;
  if (path === '/columns' && keyword !== 'maxItems') return 'columns must be a non-empty array of {"Name", "ColumnType"}.';
  if (path === '/Statement') return 'Statement must be a non-empty string.';
  if (path === '/CountStatement') return 'CountStatement must be a non-empty string when given.';
  if (path === '/Limit' || path === '/Skip')
    return `${path.slice(1)} must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, not ${JSON.stringify(value)}.`;
  const column = /^\/columns\/(\d+)\/(Name|ColumnType)$/.exec(path);
  if (column?.[2] === 'Name') return 'Each column needs a Name.';
  if (column?.[2] === 'ColumnType') {
    const name = (body as { columns: Array<{ Name?: unknown }> }).columns[Number(column[1])]?.Name;
    return `ColumnType of ${typeof name === 'string' ? name : `column ${column[1]}`} must be one of ${fieldTypes.join(', ')}.`;
  }
  return message;
}

export function parseQueryBody(body: unknown): QueryBody {
  const parsed = queryBody.parse(body);
  // A name given twice would be one column answered once, as whichever type came last.
  const seen = new Set<string>();
  parsed.columns.forEach((column, index) => {
    if (seen.has(column.Name))
      throw invalid(`/columns/${index}/Name`, `Column ${column.Name} is given twice in columns; name each column once.`);
    seen.add(column.Name);
  });
  const limit = pagingValue(parsed.Limit);
  const skip = pagingValue(parsed.Skip);
  return {
    statement: parsed.Statement,
    ...(parsed.CountStatement == null ? {} : { countStatement: parsed.CountStatement }),
    ...(limit === undefined ? {} : { limit }),
    ...(skip === undefined ? {} : { skip }),
    columns: parsed.columns.map((column) => ({ name: column.Name, type: column.ColumnType })),
  };
}

function pagingValue(value: number | string | null | undefined): number | undefined {
  return value === undefined || value === null ? undefined : Number(value);
}
