/** Components every document shares: the problem body, read parameters, write bodies, answers. */
import { fieldTypes } from '../../../definitions/types.js';
import { queryBody, queryColumnSchema } from '../query-body.js';
import { readParametersBody } from '../read-parameters.js';
import { columnSchema, fullWriteBody } from '../write-body.js';

const fieldTypeNames = [...fieldTypes];

/** `bodyLimit`: the instance's largest request body in bytes, which the 413 answer states. */
export function sharedComponents(bodyLimit: number) {
  const problem = { $ref: '#/components/schemas/Problem' };
  const problemContent = { 'application/problem+json': { schema: problem } };
  return {
    schemas: {
      Problem: {
        type: 'object',
        description: 'RFC 9457 problem details.',
        required: ['type', 'title', 'status', 'detail'],
        properties: {
          type: { type: 'string' },
          title: { type: 'string' },
          status: { type: 'integer' },
          detail: { type: 'string' },
          instance: { type: 'string', description: 'The request path.' },
          requestId: {
            type: 'string',
            description: "The request's id, as the X-Request-Id header answers it: the caller's when acceptable, else a new one.",
          },
          errors: {
            type: 'array',
            items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
          },
        },
      },
      ReadParameters: readParametersBody.schema,
      FieldDescription: {
        type: 'object',
        required: ['name', 'type', 'required', 'readOnly'],
        properties: {
          name: { type: 'string' },
          type: { enum: fieldTypeNames },
          required: { type: 'boolean' },
          readOnly: { type: 'boolean' },
        },
      },
      GroupDescription: {
        type: 'object',
        required: ['name', 'types', 'fields'],
        properties: {
          name: { type: 'string' },
          types: { type: 'array', items: { type: 'string' } },
          fields: { type: 'array', items: { $ref: '#/components/schemas/FieldDescription' } },
        },
      },
      Column: columnSchema,
      FullWrite: fullWriteBody.schema,
      WriteResult: {
        type: 'object',
        required: ['action', 'key'],
        properties: { action: { enum: ['created', 'updated'] }, key: { type: 'object' } },
      },
      QueryColumn: queryColumnSchema,
      QueryBody: queryBody.schema,
    },
    responses: {
      BadRequest: { description: 'The request does not fit (the problem names the place).', content: problemContent },
      Unauthorized: { description: 'No valid bearer token.', content: problemContent },
      Forbidden: {
        description: 'The token lacks the scope, the system is not on its allow-list, or the system refuses to write (read-only).',
        content: problemContent,
      },
      NotFound: { description: 'Unknown system, object or record.', content: problemContent },
      Rejected: { description: 'The system refused the write or the statement.', content: problemContent },
      TooLarge: {
        description: `The body is over this instance's limit of ${bodyLimit} bytes (serve --body-limit, SYNCLINE_BODY_LIMIT).`,
        content: problemContent,
      },
      UnsupportedMediaType: { description: 'The body is not application/json.', content: problemContent },
      Unsupported: {
        description:
          "The system's connector lacks a capability the request needs (limit, skip, order, count, typedGroups, readOnlyQuery), or cannot run a construct of the filter; the problem names it.",
        content: problemContent,
      },
      Unavailable: { description: 'The system cannot be reached.', content: problemContent },
      QueryBusy: {
        description:
          'The system cannot be reached, or limits.concurrentQueries of its free queries run and none ended within limits.queryWait (problem busy; Retry-After says when to try again).',
        headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until a running query has certainly ended.' } },
        content: problemContent,
      },
      QueryTooLarge: {
        description:
          "The result is over the system's limits.queryRows or limits.queryBytes (problem result-too-large): page it with Limit and Skip.",
        content: problemContent,
      },
      StatementTimeout: {
        description: "A statement ran past the system's limits.statementTimeout and was stopped (problem statement-timeout).",
        content: problemContent,
      },
      Problem: { description: 'Any other error (a method the path does not answer, a failure on the server).', content: problemContent },
    },
  };
}
