/**
 * What a paged webhook (readQueryWithSystem with `paging`) adds to its operations: the page-size,
 * offset and filter request properties under the names the webhook gives them, in the query string
 * (GET and POST: both read it) and in a JSON or form body; and the `{data, total}` answer, its rows
 * described by the response schema when the webhook has one, else by the query's declared columns
 * (without a read mapping, which would reshape them).
 *
 * The schemas say what runtime/webhooks/actions/paging-request.ts and paging-filter.ts accept: a
 * number or digits within the webhook's bounds; the filter as text in the expression language.
 */
import type { Snapshot, WebhookEntry } from '../../../definitions/snapshot.js';
import type { FieldType } from '../../../definitions/types.js';
import { typeSchema } from './record-schemas.js';

type Schema = Record<string, unknown>;
type Paging = NonNullable<WebhookEntry['definition']['paging']>;

/** The paging properties by request name, as they may appear in a body (number, digits, or null for "not set"). */
function bodyProperties(paging: Paging, columns: readonly string[]): Record<string, Schema> {
  const digits = '^\\s*\\d{1,15}\\s*$';
  return {
    [paging.pageSizeParam]: {
      type: ['integer', 'string', 'null'],
      minimum: 1,
      maximum: paging.maxPageSize,
      pattern: digits,
      default: paging.defaultPageSize,
      description: `Page size, 1 to ${paging.maxPageSize} (default ${paging.defaultPageSize}); a number or digits.`,
    },
    [paging.offsetParam]: {
      type: ['integer', 'string', 'null'],
      minimum: 0,
      pattern: digits,
      default: 0,
      description: '0-based offset of the first row; a number or digits.',
    },
    ...(paging.filterParam === undefined ? {} : { [paging.filterParam]: filterSchema(columns) }),
  };
}

function filterSchema(columns: readonly string[]): Schema {
  return {
    type: ['string', 'null'],
    description: `Optional filter of the caller's own in the expression language (e.g. ${columns[0] ?? 'name'} = 'x'), over the query's columns ${columns.join(', ')}; AND-ed with the webhook's query filter, so it only narrows the result. Empty means none.`,
    examples: [`${columns[0] ?? 'name'} = 'x'`],
  };
}

function columnsOf(snapshot: Snapshot, entry: WebhookEntry): ReadonlyArray<{ name: string; type: FieldType }> {
  const d = entry.definition;
  return (
    (d.system === undefined || d.query === undefined ? undefined : snapshot.systems.get(d.system)?.definition.queries[d.query]?.columns) ??
    []
  );
}

/** Query-string parameters of the paging properties, but those the request schema already lists (for a GET). */
export function pagingParameters(snapshot: Snapshot, entry: WebhookEntry, listed: ReadonlySet<string>): Schema[] {
  const paging = entry.definition.paging;
  if (paging === undefined) return [];
  const parameter = (name: string, schema: Schema, description: string): Schema => ({
    name,
    in: 'query',
    required: false,
    schema,
    description,
  });
  const parameters = [
    parameter(
      paging.pageSizeParam,
      { type: 'integer', minimum: 1, maximum: paging.maxPageSize, default: paging.defaultPageSize },
      'Page size.',
    ),
    parameter(paging.offsetParam, { type: 'integer', minimum: 0, default: 0 }, '0-based offset of the first row.'),
  ];
  if (paging.filterParam !== undefined) {
    const { description, examples } = filterSchema(columnsOf(snapshot, entry).map((column) => column.name));
    parameters.push(parameter(paging.filterParam, { type: 'string', examples }, description as string));
  }
  return parameters.filter((p) => !listed.has(p.name as string));
}

/** The request body schema with the paging properties added, where the request schema leaves room for them. */
export function pagingRequest(snapshot: Snapshot, entry: WebhookEntry, request: Schema): Schema {
  const paging = entry.definition.paging;
  if (paging === undefined || request.type !== 'object' || request.additionalProperties === false) return request;
  const declared = (request.properties ?? {}) as Record<string, Schema>;
  const added = Object.entries(
    bodyProperties(
      paging,
      columnsOf(snapshot, entry).map((column) => column.name),
    ),
  ).filter(([name]) => !Object.hasOwn(declared, name));
  return { ...request, properties: { ...declared, ...Object.fromEntries(added) } };
}

/** The `{data, total}` answer of a paged webhook. */
export function pagingAnswer(snapshot: Snapshot, entry: WebhookEntry): Schema {
  const d = entry.definition;
  const declared = d.responseSchema as Schema | undefined;
  // A response schema that already describes the paging object is the author's word for it.
  if (declared !== undefined && (declared.properties as Schema | undefined)?.data !== undefined) return declared;
  let data: Schema;
  if (declared?.type === 'array') data = declared;
  else if (declared !== undefined) data = { type: 'array', items: declared };
  else if (d.readMapping !== undefined) data = { type: 'array', items: { description: 'A row as the read mapping produces it.' } };
  else {
    const columns = columnsOf(snapshot, entry);
    data = {
      type: 'array',
      items: {
        type: 'object',
        properties: Object.fromEntries(columns.map((column) => [column.name, typeSchema(column.type)])),
        additionalProperties: false,
      },
    };
  }
  return {
    type: 'object',
    required: ['data', 'total'],
    properties: {
      data: { ...data, description: 'The rows of the page.' },
      total: { type: 'integer', minimum: 0, description: 'All rows the query finds under the filters, across pages.' },
    },
    additionalProperties: false,
  };
}
