/** The six connection endpoints, with the snapshot's system keys and object types as enums. */
import type { Snapshot } from '../../../definitions/snapshot.js';
import { lackingCapabilities } from '../require-capability.js';
import { minimalWriteBody } from '../write-body.js';
import { recordSchemaName } from './record-schemas.js';

const errorResponses = {
  400: { $ref: '#/components/responses/BadRequest' },
  401: { $ref: '#/components/responses/Unauthorized' },
  403: { $ref: '#/components/responses/Forbidden' },
  404: { $ref: '#/components/responses/NotFound' },
  422: { $ref: '#/components/responses/Unsupported' },
  503: { $ref: '#/components/responses/Unavailable' },
  504: { $ref: '#/components/responses/StatementTimeout' },
  default: { $ref: '#/components/responses/Problem' },
};
/** Routes that read a JSON body also answer these. */
const bodyResponses = {
  413: { $ref: '#/components/responses/TooLarge' },
  415: { $ref: '#/components/responses/UnsupportedMediaType' },
};
const rejected = { $ref: '#/components/responses/Rejected' };

export function connectionPaths(snapshot: Snapshot): Record<string, unknown> {
  const systems = [...snapshot.systems.keys()];
  const objects = [...new Set([...snapshot.systems.values()].flatMap((s) => Object.keys(s.definition.objects)))];
  const records = [...snapshot.systems].flatMap(([id, s]) =>
    Object.keys(s.definition.objects).map((o) => ({ $ref: `#/components/schemas/${recordSchemaName(id, o)}` })),
  );
  // anyOf, not oneOf: two objects with the same fields would make every record of theirs match twice.
  const record = records.length ? { anyOf: records } : { type: 'object' };
  const enumOrString = (values: string[]) => (values.length ? { type: 'string', enum: values } : { type: 'string' });
  const lacking = [...snapshot.systems]
    .map(([id, entry]) => ({ id, capabilities: lackingCapabilities(entry) }))
    .filter((s) => s.capabilities.length > 0);
  const lackingNote = lacking.length
    ? ` What a system's connector cannot do is answered 422: ${lacking.map((s) => `${s.id} lacks ${s.capabilities.join(', ')}`).join('; ')}.`
    : '';
  const system = {
    name: 'system_key',
    in: 'path',
    required: true,
    schema: enumOrString(systems),
    description: `The connected system.${lackingNote}`,
  };
  const object = {
    name: 'object_type',
    in: 'path',
    required: true,
    schema: enumOrString(objects),
    description: 'The schema object of the system.',
  };
  const json = (schema: unknown) => ({ 'application/json': { schema } });
  const readBody = { required: false, content: json({ $ref: '#/components/schemas/ReadParameters' }) };
  const metadata = {
    system: { type: 'string' },
    object: { type: 'string' },
    key: { type: 'array', items: { type: 'string' } },
    fields: { type: 'array', items: { $ref: '#/components/schemas/FieldDescription' } },
    groups: { type: 'array', items: { $ref: '#/components/schemas/GroupDescription' } },
  };
  const writeAnswer = {
    200: { description: 'Updated.', content: json({ $ref: '#/components/schemas/WriteResult' }) },
    201: { description: 'Created.', content: json({ $ref: '#/components/schemas/WriteResult' }) },
    409: rejected,
    ...errorResponses,
    ...bodyResponses,
  };
  return {
    '/api/RunConnectionGetData/{system_key}/{object_type}': {
      post: {
        operationId: 'RunConnectionGetData',
        summary: 'Read records with metadata (fields, types, object groups) for display.',
        tags: ['systems'],
        parameters: [system, object],
        requestBody: readBody,
        responses: {
          200: {
            description: 'Metadata, the total matching and the records.',
            content: json({
              type: 'object',
              required: ['fields', 'groups', 'records', 'total'],
              properties: { ...metadata, total: { type: 'integer' }, records: { type: 'array', items: record } },
            }),
          },
          ...errorResponses,
          ...bodyResponses,
        },
      },
    },
    '/api/RunConnectionGetDataMin/{system_key}/{object_type}': {
      post: {
        operationId: 'RunConnectionGetDataMin',
        summary: 'Read records only, groups as direct properties: for processing.',
        tags: ['systems'],
        parameters: [system, object],
        requestBody: readBody,
        responses: {
          200: { description: 'The records.', content: json({ type: 'array', items: record }) },
          ...errorResponses,
          ...bodyResponses,
        },
      },
    },
    '/api/GetDataObject/{system_key}/{object_type}/{object_key}': {
      get: {
        operationId: 'GetDataObject',
        summary: 'One record with metadata.',
        tags: ['systems'],
        parameters: [
          system,
          object,
          {
            name: 'object_key',
            in: 'path',
            required: true,
            schema: { type: 'string' },
            description: 'The key value; composite keys as values in key order separated by commas, or a JSON object.',
          },
        ],
        responses: {
          200: {
            description: 'The record with metadata.',
            content: json({ type: 'object', required: ['record'], properties: { ...metadata, record } }),
          },
          ...errorResponses,
        },
      },
    },
    '/api/RunConnectionGetQueryData/{system_key}': {
      post: {
        operationId: 'RunConnectionGetQueryData',
        summary: 'Run a read-only query (scope systems:query).',
        tags: ['systems'],
        parameters: [system],
        requestBody: { required: true, content: json({ $ref: '#/components/schemas/QueryBody' }) },
        responses: {
          200: {
            description: 'Rows projected to the declared columns, and the total when CountStatement was given.',
            content: json({
              type: 'object',
              required: ['columns', 'records'],
              properties: {
                columns: { type: 'array', items: { $ref: '#/components/schemas/QueryColumn' } },
                records: { type: 'array', items: { type: 'object' } },
                total: { type: 'integer' },
              },
            }),
          },
          409: rejected,
          ...errorResponses,
          422: { $ref: '#/components/responses/QueryTooLarge' },
          503: { $ref: '#/components/responses/QueryBusy' },
          ...bodyResponses,
        },
      },
    },
    '/api/RunConnectionSetData/{system_key}/{object_type}': {
      post: {
        operationId: 'RunConnectionSetData',
        summary: 'Create or update a record, including typed object groups (group[type].field).',
        tags: ['systems'],
        parameters: [system, object],
        requestBody: { required: true, content: json({ $ref: '#/components/schemas/FullWrite' }) },
        responses: writeAnswer,
      },
    },
    '/api/RunConnectionSetDataMin/{system_key}/{object_type}': {
      post: {
        operationId: 'RunConnectionSetDataMin',
        summary: 'Create or update a record from a flat object (no typed groups).',
        tags: ['systems'],
        parameters: [system, object],
        requestBody: { required: true, content: json(minimalWriteBody.schema) },
        responses: writeAnswer,
      },
    },
  };
}
