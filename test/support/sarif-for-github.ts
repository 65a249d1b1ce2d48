/**
 * The part of SARIF 2.1.0 that GitHub code scanning needs of an upload, as a JSON Schema for ajv:
 * the fields its documentation ("SARIF support for code scanning") lists as required or used,
 * with the types and ranges of the OASIS schema. Not the whole OASIS schema (no copy of it is at
 * hand without a new dependency); what it checks is what an upload is refused or misread for.
 */
const message = {
  type: 'object',
  required: ['text'],
  properties: { text: { type: 'string', minLength: 1 } },
};

const level = { enum: ['none', 'note', 'warning', 'error'] };

const rule = {
  type: 'object',
  required: ['id', 'shortDescription'],
  properties: {
    id: { type: 'string', minLength: 1 },
    name: { type: 'string' },
    shortDescription: message,
    fullDescription: message,
    helpUri: { type: 'string', format: 'uri' },
    defaultConfiguration: { type: 'object', properties: { level } },
  },
};

const location = {
  type: 'object',
  required: ['physicalLocation'],
  properties: {
    physicalLocation: {
      type: 'object',
      required: ['artifactLocation', 'region'],
      properties: {
        artifactLocation: {
          type: 'object',
          required: ['uri'],
          properties: { uri: { type: 'string', format: 'uri-reference' }, uriBaseId: { type: 'string' } },
        },
        region: {
          type: 'object',
          required: ['startLine'],
          properties: {
            startLine: { type: 'integer', minimum: 1 },
            startColumn: { type: 'integer', minimum: 1 },
            endLine: { type: 'integer', minimum: 1 },
            endColumn: { type: 'integer', minimum: 1 },
          },
        },
      },
    },
  },
};

const result = {
  type: 'object',
  required: ['ruleId', 'message', 'locations'],
  properties: {
    ruleId: { type: 'string', minLength: 1 },
    ruleIndex: { type: 'integer', minimum: 0 },
    level,
    message,
    // GitHub reads the first location only and refuses results without one.
    locations: { type: 'array', minItems: 1, maxItems: 10, items: location },
  },
};

export const sarifForGithubSchema = {
  type: 'object',
  required: ['version', 'runs'],
  properties: {
    $schema: { type: 'string', format: 'uri' },
    version: { const: '2.1.0' },
    runs: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['tool', 'results'],
        properties: {
          tool: {
            type: 'object',
            required: ['driver'],
            properties: {
              driver: {
                type: 'object',
                required: ['name'],
                properties: {
                  name: { type: 'string', minLength: 1 },
                  version: { type: 'string' },
                  semanticVersion: { type: 'string' },
                  informationUri: { type: 'string', format: 'uri' },
                  rules: { type: 'array', items: rule },
                },
              },
            },
          },
          originalUriBaseIds: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              properties: { uri: { type: 'string', format: 'uri', pattern: '/$' } },
            },
          },
          invocations: {
            type: 'array',
            items: { type: 'object', required: ['executionSuccessful'], properties: { executionSuccessful: { type: 'boolean' } } },
          },
          // GitHub accepts at most 25,000 results per run.
          results: { type: 'array', maxItems: 25000, items: result },
        },
      },
    },
  },
} as const;
