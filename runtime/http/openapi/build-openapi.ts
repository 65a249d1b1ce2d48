/**
 * The instance's interface description (OpenAPI 3.1), generated from the current snapshot: the
 * routes with enums of the real system keys and object types, and a schema per object. Built once
 * per snapshot, so a hot reload publishes a new description.
 */
import type { Snapshot } from '../../../definitions/snapshot.js';
import { connectionPaths } from './connection-paths.js';
import { consoleInfoPaths, consoleInfoSchemas } from './console-info-paths.js';
import { queuePaths, queueSchemas } from './queue-paths.js';
import { sharedComponents } from './shared-components.js';
import { recordSchema, recordSchemaName } from './record-schemas.js';
import { webhookConsolePaths, webhookConsoleSchemas, webhookPaths } from './webhook-paths.js';

export type OpenApiDocument = Record<string, unknown>;

export interface OpenApiSettings {
  version: string;
  /** The instance's largest request body in bytes, stated with the 413 answer. */
  bodyLimit: number;
}

const cache = new WeakMap<Snapshot, { settings: OpenApiSettings; document: OpenApiDocument }>();

export function openApiFor(snapshot: Snapshot, settings: OpenApiSettings): OpenApiDocument {
  const cached = cache.get(snapshot);
  if (cached && cached.settings.version === settings.version && cached.settings.bodyLimit === settings.bodyLimit) return cached.document;
  const document = build(snapshot, settings);
  cache.set(snapshot, { settings, document });
  return document;
}

function build(snapshot: Snapshot, { version, bodyLimit }: OpenApiSettings): OpenApiDocument {
  const shared = sharedComponents(bodyLimit);
  const recordSchemas: Record<string, unknown> = {};
  for (const [systemId, system] of snapshot.systems) {
    for (const [name, object] of Object.entries(system.definition.objects)) {
      recordSchemas[recordSchemaName(systemId, name)] = recordSchema(`${systemId}/${name}`, object);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Syncline',
      version,
      description: 'Queue execution, direct system access and incoming webhooks of this Syncline instance. Generated from its definitions.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths: {
      ...healthPaths(),
      ...queuePaths(snapshot),
      ...connectionPaths(snapshot),
      ...webhookPaths(snapshot),
      ...webhookConsolePaths(snapshot),
      ...consoleInfoPaths(),
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A token of an ApiClient definition, or the admin token.' },
      },
      responses: shared.responses,
      schemas: { ...shared.schemas, ...queueSchemas(), ...webhookConsoleSchemas(), ...consoleInfoSchemas(), ...recordSchemas },
    },
  };
}

function healthPaths() {
  const open = { security: [] as unknown[] };
  const json = (schema: unknown) => ({ 'application/json': { schema } });
  const count = { type: 'integer', minimum: 0 };
  const queue = {
    type: 'object',
    description:
      'Queue items by status, when the earliest Pending one is due, and whether this process runs a daemon (without one anywhere, Pending items wait).',
    required: ['Pending', 'InProgress', 'Complete', 'Failed', 'nextDue', 'daemon'],
    properties: {
      Pending: count,
      InProgress: count,
      Complete: count,
      Failed: count,
      nextDue: { type: ['string', 'null'], format: 'date-time' },
      daemon: { enum: ['active', 'inactive'] },
    },
  };
  const ready = {
    type: 'object',
    required: ['status', 'snapshot', 'lastReload', 'queue'],
    properties: {
      status: { const: 'ready' },
      queue,
      snapshot: {
        type: 'object',
        required: ['digest', 'loadedAt', 'files', 'definitions'],
        properties: {
          digest: { type: 'string' },
          loadedAt: { type: 'string', format: 'date-time' },
          files: { type: 'integer', minimum: 0, description: 'How many definition files are loaded.' },
          definitions: {
            type: 'object',
            description: 'How many definitions of each kind are loaded (ids stay behind a token).',
            properties: Object.fromEntries(
              ['System', 'Sync', 'Webhook', 'Flow', 'ApiClient'].map((kind) => [kind, { type: 'integer', minimum: 0 }]),
            ),
          },
        },
      },
      lastReload: {
        type: 'object',
        required: ['at', 'ok', 'durationMs', 'problems'],
        properties: {
          at: { type: 'string', format: 'date-time' },
          ok: { type: 'boolean' },
          durationMs: { type: 'number' },
          problems: { type: 'array', items: { type: 'string' }, description: 'file:line:column: Kind/id: message' },
        },
      },
    },
  };
  return {
    '/healthz': {
      get: {
        ...open,
        operationId: 'health',
        summary: 'The process answers.',
        responses: {
          200: { description: 'Alive.', content: json({ type: 'object', required: ['status'], properties: { status: { const: 'ok' } } }) },
        },
      },
    },
    '/readyz': {
      get: {
        ...open,
        operationId: 'ready',
        summary: 'Definitions loaded, the last reload and its problems; the queue.',
        responses: {
          200: { description: 'Ready.', content: json(ready) },
          503: {
            description: 'The runtime database does not answer; the reason says why.',
            content: json({
              type: 'object',
              required: ['status', 'reason', 'snapshot', 'lastReload'],
              properties: { ...ready.properties, status: { const: 'unready' }, reason: { type: 'string' } },
            }),
          },
        },
      },
    },
    '/metrics': {
      get: {
        ...open,
        operationId: 'metrics',
        summary: 'Prometheus metrics.',
        responses: {
          200: { description: 'Metrics in the Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
    '/api/openapi.json': {
      get: {
        operationId: 'openapi',
        summary: 'This interface description, generated from the definitions being served.',
        responses: {
          200: { description: 'OpenAPI 3.1 document.', content: json({ type: 'object', required: ['openapi', 'info', 'paths'] }) },
          401: { $ref: '#/components/responses/Unauthorized' },
        },
      },
    },
  };
}
