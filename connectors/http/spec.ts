/**
 * The `http` connector's spec: REST/JSON APIs. The connection is the shared web settings
 * (connectors/web: baseUrl, auth, headers, retries, rateLimit, maxResponseBytes) and a few of its
 * own; each object says, in its own options, which request does what — `list`, `get`, `create`,
 * `update` with path templates — where the records sit in a list answer, how the API pages and
 * which query parameters narrow a read or sort it. Typed groups are nested objects of the JSON
 * records, one entry per type (`addresses: { main: {…}, invoice: {…} }`).
 *
 * Capabilities: filters are not pushed down as such (a declared parameter only narrows what is
 * fetched; every record is checked in memory, so answers are exact), limit, skip, order and count
 * are served (by the API where the object says how, else in memory), free queries are not.
 */
import type { ConnectorSpec, JsonSchema } from '../../definitions/connector-spec.js';
import { webConnectionProperties, webConnectionRequired } from '../web/index.js';
import { checkHttpSystem } from './check-system.js';
import { filterOperators } from './filter-mapping.js';

/** A path below connection.baseUrl, never a URL of its own (credentials go to baseUrl's origin only). */
const relativePath = (description: string): JsonSchema => ({
  type: 'string',
  minLength: 1,
  pattern: '^(?![A-Za-z][A-Za-z0-9+.-]*:)[^?#\\s]*$',
  description,
});

const jsonata = (description: string): JsonSchema => ({ type: 'string', minLength: 1, description });

const parameterName = (description: string, fallback?: string): JsonSchema => ({
  type: 'string',
  minLength: 1,
  pattern: '^[^\\s&=#?]+$',
  ...(fallback === undefined ? {} : { default: fallback }),
  description,
});

const staticQuery: JsonSchema = {
  type: 'object',
  propertyNames: { pattern: '^[^\\s&=#?]+$' },
  additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
  description: 'Query parameters sent with every request of this operation, e.g. { expand: addresses }.',
};

/** A field of the object, or of a group entry of one type: `email`, `addresses.main.city`. */
const fieldPath: JsonSchema = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z0-9_-]+\\.[A-Za-z_][A-Za-z0-9_]*)?$' };

const templateNote =
  'Placeholders in braces name fields of the record; their values are URL-encoded as data, so a value never changes the path.';

const paging: JsonSchema = {
  type: 'object',
  required: ['style'],
  description:
    "How the API pages its list answer: offset (offset and limit parameters), page (page number and size), cursor (a cursor from the answer sent back as a parameter), link (the next page's URL in a Link header, or in the body) or none (one answer holds every record). Default none.",
  properties: {
    style: { enum: ['offset', 'page', 'cursor', 'link', 'none'], description: 'The paging style: offset, page, cursor, link or none.' },
    pageSize: {
      type: 'integer',
      minimum: 1,
      maximum: 10000,
      default: 100,
      description:
        'Most records asked for per request; a read that needs fewer asks for fewer. Reading goes on until the API answers an empty page, the records received reach the total, no next page is named or (page) a page is shorter than those before it, so an API that gives fewer per page than asked loses nothing.',
    },
    offsetParam: parameterName('offset: the parameter of the first record to answer, counted from 0; default offset.'),
    limitParam: parameterName('offset: the parameter of how many records to answer; default limit.'),
    pageParam: parameterName('page: the parameter of the page number; default page.'),
    firstPage: { type: 'integer', minimum: 0, description: 'page: the number of the first page; default 1.' },
    sizeParam: parameterName(
      "page: the parameter of the page size (default size); cursor: of how many records to answer (default limit); link: of the first request's page size (default none: the API's own).",
    ),
    cursor: jsonata(
      'cursor: JSONata over the answer giving the next cursor, e.g. meta.next_cursor; none (null, empty) means the last page.',
    ),
    cursorParam: parameterName('cursor: the parameter the cursor is sent in; default cursor.'),
    next: jsonata(
      'link: JSONata over the answer giving the next page\'s URL, e.g. links.next, for APIs that put it in the body; default the Link header\'s rel="next".',
    ),
  },
  allOf: [
    pagingStyle('offset', ['offsetParam', 'limitParam'], { offsetParam: 'offset', limitParam: 'limit' }),
    pagingStyle('page', ['pageParam', 'sizeParam', 'firstPage'], { pageParam: 'page', sizeParam: 'size', firstPage: 1 }),
    pagingStyle('cursor', ['cursor', 'cursorParam', 'sizeParam'], { cursorParam: 'cursor', sizeParam: 'limit' }, ['cursor']),
    pagingStyle('link', ['sizeParam', 'next'], {}),
    pagingStyle('none', [], {}),
  ],
};

/** The properties `style` takes besides pageSize (no others), those it requires, and its defaults. */
function pagingStyle(
  style: string,
  takes: readonly string[],
  defaults: Record<string, unknown>,
  requires: readonly string[] = [],
): JsonSchema {
  return {
    if: { properties: { style: { const: style } }, required: ['style'] },
    then: {
      additionalProperties: false,
      required: ['style', ...requires],
      properties: Object.fromEntries(
        ['style', 'pageSize', ...takes].map((name) => [name, name in defaults ? { default: defaults[name] } : true]),
      ),
    },
  };
}

const filter: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['field', 'op', 'param'],
  properties: {
    field: { ...fieldPath, description: 'The field the parameter tests: a field of the object, or group.type.field.' },
    op: {
      enum: [...filterOperators],
      description:
        'What the API does with the parameter: =, <>, <, <=, >, >= (compares the field with the value), in (the field is one of the values; the parameter repeated, or joined by separator), contains, startswith, endswith, like (text). Declare only what the API answers at least every record of: a wider answer is fine, since every record is checked again, a narrower one loses records.',
    },
    param: parameterName('The query parameter, e.g. email or score_gte.'),
    value: {
      enum: ['text', 'regex'],
      default: 'text',
      description:
        'How the value is sent: text (as it is), or regex (a regular expression, for an API that matches one: contains, startswith, endswith and like are sent as an escaped, anchored pattern).',
    },
    separator: {
      type: 'string',
      minLength: 1,
      description:
        'in: the values joined by this into one parameter (e.g. ","); default: the parameter repeated once per value. A list with a value holding the separator is not sent (the API would split that value), and is checked in memory only.',
    },
  },
};

const sort: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['param', 'fields'],
  description:
    "How the API sorts its list answer, used when it covers the whole order asked for; otherwise the order is made in memory. The answer's order is checked as it streams in: an API that sorts otherwise than Syncline fails the read instead of answering out of order.",
  properties: {
    param: parameterName('The parameter naming the fields to sort by, e.g. _sort or sort.'),
    fields: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
      description:
        'Fields the API sorts as Syncline does (nulls first, text by code point, numbers by value); the key must be among them, since it breaks ties. Leave out fields with nulls or whose text the API sorts by another collation.',
    },
    directionParam: parameterName('The parameter of the directions, one per field (e.g. _order=desc,asc); default: none.'),
    descendingPrefix: {
      type: 'string',
      minLength: 1,
      maxLength: 1,
      description: "The prefix of a field sorted descending in param (e.g. '-' for sort=-name,id); default: none.",
    },
    ascending: { type: 'string', minLength: 1, default: 'asc', description: 'directionParam: the word for ascending.' },
    descending: { type: 'string', minLength: 1, default: 'desc', description: 'directionParam: the word for descending.' },
    separator: { type: 'string', minLength: 1, default: ',', description: 'Between several fields (and their directions).' },
  },
};

export const spec: ConnectorSpec = Object.freeze({
  name: 'http',
  description: 'REST/JSON APIs: records read, found and written through declared paths, paged as the API pages.',
  connectionSchema: {
    type: 'object',
    additionalProperties: false,
    required: [...webConnectionRequired],
    description: 'Where the API lives and how to sign in; the paths of each object are below baseUrl.',
    properties: {
      ...webConnectionProperties,
      check: relativePath('A path whose GET answers 2xx when the API is up (default: baseUrl itself), e.g. /health.'),
      discover: {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: relativePath('A path whose GET answers a list of records.'),
        description:
          '`syncline discover`: paths whose GET answers a list of records, e.g. [/customers, /accounts], each proposed as an object; declared objects are sampled through their own list path.',
      },
      writeConcurrency: {
        type: 'integer',
        minimum: 1,
        maximum: 16,
        default: 4,
        description: 'Writes of one batch (a sync page) sent at once; each record is one request.',
      },
    },
  },
  objectProperties: {
    list: {
      type: 'object',
      additionalProperties: false,
      required: ['path'],
      description: 'GET of the collection: what reads, counts and searches ask.',
      properties: { path: relativePath('The collection, e.g. /customers.'), query: staticQuery },
    },
    get: {
      type: 'object',
      additionalProperties: false,
      required: ['path'],
      description:
        'GET of one record by its key (GETDATA_ID, GetDataObject, finding a record to write); a 404 means there is none. Default: the list, searched.',
      properties: {
        path: relativePath(`One record, e.g. /customers/{id}. ${templateNote}`),
        query: staticQuery,
        record: jsonata('JSONata over the answer giving the record, e.g. data; default the answer itself.'),
      },
    },
    create: {
      type: 'object',
      additionalProperties: false,
      required: ['path'],
      description: 'The request that creates a record, with the record as its JSON body. Default: none (creating is refused).',
      properties: {
        method: { enum: ['POST', 'PUT'], default: 'POST', description: 'POST (or PUT to a path naming the new key).' },
        path: relativePath(`Where to send it, e.g. /customers. ${templateNote}`),
        query: staticQuery,
        key: jsonata(
          'JSONata over the answer giving an object with the new key, e.g. data; default the answer itself (the created record). Without an answer, the key sent is the key.',
        ),
      },
    },
    update: {
      type: 'object',
      additionalProperties: false,
      required: ['path'],
      description:
        'The request that updates a found record. PATCH sends the fields written; PUT sends the whole record as read, with the fields written changed. Default: none (updating is refused).',
      properties: {
        method: { enum: ['PATCH', 'PUT', 'POST'], default: 'PATCH', description: 'PATCH, PUT or POST.' },
        path: relativePath(
          `The record, e.g. /customers/{id}, filled with the values of the record found as the API answered them (a key "007" stays 007). ${templateNote}`,
        ),
        query: staticQuery,
      },
    },
    records: jsonata(
      'JSONata over a list answer giving its records, e.g. data or items; default the answer itself, which must then be an array.',
    ),
    total: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      maxProperties: 1,
      description:
        'Where a list answer tells how many records there are in all, when it does: counts without a filter ask for one record and read it, and paging stops at it.',
      properties: {
        header: {
          type: 'string',
          pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
          description: 'A header holding the total, e.g. X-Total-Count.',
        },
        expression: jsonata('JSONata over the answer giving the total, e.g. meta.total.'),
      },
    },
    paging,
    filters: {
      type: 'array',
      items: filter,
      description:
        'Query parameters that narrow a read: a top-level AND term of the filter on this field with this operator and a constant value is sent as the parameter. Every record is still checked against the whole filter in memory.',
    },
    sort,
  },
  requiredObjectProperties: ['list'],
  groupProperties: {
    property: {
      type: 'string',
      minLength: 1,
      description:
        "The record's JSON property holding the group's entries by type, e.g. addresses: { main: {…} }; default the group's name.",
    },
  },
  requiredGroupProperties: [],
  capabilities: Object.freeze({
    filterPushDown: false,
    limit: true,
    skip: true,
    order: true,
    count: true,
    typedGroups: true,
    transactions: false,
    readOnlyQuery: false,
  }),
  checkSystem: checkHttpSystem,
});
