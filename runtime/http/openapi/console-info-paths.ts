/**
 * The console's read routes (console-info-routes.ts) and their schemas. The schemas are closed
 * (no additional properties): a field added to an answer must be described here first, so nothing
 * slips into an answer — a connection setting, a secret — without someone deciding it belongs.
 */
import { queueStatuses } from '../../queue/queue-item.js';
import { readKindSchema } from '../../../definitions/schema/kind-schemas.js';
import { definitionKinds, fieldTypes } from '../../../definitions/types.js';

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
const schema = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (body: unknown) => ({ 'application/json': { schema: body } });
const text = { type: 'string' };
const timestamp = { type: 'string', format: 'date-time' };
const count = { type: 'integer', minimum: 0 };
const position = { type: 'integer', minimum: 0 };
const closed = (required: string[], properties: Record<string, unknown>, description?: string) => ({
  type: 'object',
  ...(description === undefined ? {} : { description }),
  required,
  properties,
  additionalProperties: false,
});
const errors = { 401: ref('Unauthorized'), 403: ref('Forbidden'), default: ref('Problem') };

// The actions and signature profiles as webhook.schema.json lists them, so they cannot drift apart.
interface EnumSchema {
  enum?: string[];
  properties?: Record<string, EnumSchema>;
}
const webhookSchema = readKindSchema('Webhook') as { properties: Record<string, EnumSchema> };
const enumOf = (schema: EnumSchema | undefined, what: string): string[] => {
  if (!schema?.enum) throw new Error(`webhook.schema.json has no enum at ${what}`);
  return schema.enum;
};
const webhookActions = enumOf(webhookSchema.properties.action, 'action');
const signatureProfiles = enumOf(webhookSchema.properties.signature?.properties?.profile, 'signature.profile');

/** The connector capabilities, each a yes or no (definitions/connector-spec.ts). */
const capabilityNames = ['filterPushDown', 'limit', 'skip', 'order', 'count', 'typedGroups', 'transactions', 'readOnlyQuery'] as const;

export function consoleInfoSchemas() {
  const file = { type: 'string', description: 'Relative to the definitions directory.' };
  const systemIdentity = {
    id: text,
    name: text,
    description: text,
    connector: { type: 'string', description: 'The connector kind: sql, odata, http, file.' },
    readOnly: { type: 'boolean', description: 'The system refuses writes.' },
    capabilities: closed(
      [...capabilityNames],
      Object.fromEntries(capabilityNames.map((name) => [name, { type: 'boolean' }])),
      "What the system's connector can do; a request needing a capability it lacks is answered 422.",
    ),
    file,
    line: position,
  };
  const systemRequired = ['id', 'connector', 'readOnly', 'capabilities', 'objects', 'queries', 'file', 'line'];
  const names = { type: 'array', items: text };
  return {
    SystemSummary: closed(
      systemRequired,
      { ...systemIdentity, objects: { ...names, description: 'Object names, as the connection routes take them.' }, queries: names },
      'A connected system: no connection settings, only what it holds.',
    ),
    SystemDetail: closed(
      systemRequired,
      {
        ...systemIdentity,
        objects: {
          type: 'array',
          items: closed(
            ['name', 'key', 'fields', 'groups', 'readOnly'],
            {
              name: text,
              description: text,
              key: { type: 'array', items: text, description: 'The fields that identify a record.' },
              fields: { type: 'array', items: schema('FieldDescription') },
              groups: { type: 'array', items: schema('GroupDescription') },
              readOnly: { type: 'boolean', description: 'Writes are refused (the object or its system is read-only).' },
            },
            'An object as RunConnectionGetData describes it.',
          ),
        },
        queries: {
          type: 'array',
          items: closed(['name', 'columns'], {
            name: text,
            description: text,
            columns: {
              type: 'array',
              items: closed(['name', 'type'], { name: text, type: { enum: [...fieldTypes] } }),
            },
          }),
        },
      },
      "A connected system with each object's key, fields and typed groups and each query's columns (never the statement).",
    ),
    ReloadProblem: closed(['file', 'line', 'column', 'code', 'message', 'severity'], {
      file,
      line: position,
      column: position,
      kind: text,
      id: text,
      code: { type: 'string', description: 'Stable code, e.g. yaml-syntax, schema, unknown-reference.' },
      message: text,
      severity: { enum: ['error', 'warning'] },
    }),
    LastReload: closed(
      ['at', 'ok', 'durationMs', 'problems', 'hiddenProblems'],
      {
        at: timestamp,
        ok: { type: 'boolean', description: 'False: the edit was refused and the previous definitions keep serving.' },
        durationMs: { type: 'number' },
        problems: { type: 'array', items: schema('ReloadProblem') },
        hiddenProblems: { ...count, description: 'Problems of definitions this client may not see, left out.' },
      },
      'The last reload: when, whether it succeeded, and its problems (its warnings when it succeeded).',
    ),
    Schedule: closed(['id', 'kind', 'startType', 'active', 'nextRun', 'lastRun'], {
      id: text,
      kind: { enum: ['Sync', 'Flow'] },
      name: text,
      every: { type: 'string', description: 'The interval as written (start type repeat).' },
      cron: { type: 'string', description: 'The cron expression as written (start type planned).' },
      timezone: text,
      startType: { enum: ['repeat', 'planned'] },
      active: { type: 'boolean', description: 'A daemon (with its scheduler) is active in the cluster and the schedule has a next slot.' },
      nextRun: { type: ['string', 'null'], format: 'date-time', description: 'The next slot as the scheduler computes it (UTC).' },
      lastRun: {
        oneOf: [
          { type: 'null' },
          closed(['slotAt', 'itemId', 'status'], {
            slotAt: timestamp,
            itemId: text,
            status: { enum: [...queueStatuses, null], description: 'Null when the item has been pruned.' },
          }),
        ],
      },
    }),
    DefinitionSummary: closed(['id', 'file', 'line', 'column'], { id: text, name: text, file, line: position, column: position }),
    WebhookSummary: closed(['id', 'url', 'action', 'active', 'hasSecret', 'signature', 'pinnedEntries', 'file', 'line'], {
      id: text,
      name: text,
      url: { type: 'string', description: 'The path callers send to: /api/webhooks/{id}.' },
      action: { enum: webhookActions },
      sync: text,
      flow: text,
      system: text,
      object: text,
      query: text,
      active: { type: 'boolean', description: 'Inactive webhooks answer 410.' },
      hasSecret: { type: 'boolean', description: 'Callers must send the secret; the secret itself is never shown.' },
      signature: { enum: [...signatureProfiles, null], description: 'The signature profile callers sign with.' },
      pinnedEntries: count,
      file,
      line: position,
    }),
  };
}

export function consoleInfoPaths(): Record<string, unknown> {
  const daemon = closed(['id', 'host', 'pid', 'version', 'command', 'concurrency', 'running', 'startedAt', 'lastHeartbeatAt'], {
    id: text,
    host: text,
    pid: { type: 'integer' },
    version: text,
    command: { enum: ['serve', 'daemon'] },
    concurrency: { type: 'integer' },
    running: { ...count, description: 'Items it ran at its last heartbeat.' },
    startedAt: timestamp,
    lastHeartbeatAt: timestamp,
  });
  const queue = closed(
    [...queueStatuses],
    Object.fromEntries(queueStatuses.map((status) => [status, count])),
    'Queue items by status (only those of the syncs and flows the client may see, with a sync allow-list).',
  );
  const schedules = { type: 'array', items: schema('Schedule') };
  const lastReload = schema('LastReload');
  return {
    '/api/console/overview': {
      get: {
        operationId: 'consoleOverview',
        summary: 'Version, role, queue counts, daemons across the cluster, schedules and the last reload (scope console).',
        tags: ['console'],
        responses: {
          200: {
            description: 'The overview.',
            content: json(
              closed(['version', 'role', 'queue', 'daemons', 'schedules', 'lastReload'], {
                version: text,
                role: { enum: ['api', 'api+daemon'], description: 'What this process runs beside the API.' },
                queue,
                daemons: closed(
                  ['count', 'daemons'],
                  { count, daemons: { type: 'array', items: daemon } },
                  'Active daemons, oldest first.',
                ),
                schedules,
                lastReload,
              }),
            ),
          },
          ...errors,
        },
      },
    },
    '/api/schedules': {
      get: {
        operationId: 'listSchedules',
        summary: 'Every scheduled sync and flow with its next and last run (scope console).',
        tags: ['console'],
        responses: { 200: { description: 'The schedules.', content: json(closed(['schedules'], { schedules })) }, ...errors },
      },
    },
    '/api/definitions': {
      get: {
        operationId: 'listDefinitions',
        summary: 'What is loaded — kind, id, name, file and line — and the last reload with its problems (scope console).',
        tags: ['console'],
        responses: {
          200: {
            description: 'The loaded definitions, by kind.',
            content: json(
              closed(['digest', 'loadedAt', 'definitions', 'lastReload'], {
                digest: text,
                loadedAt: timestamp,
                definitions: closed(
                  [...definitionKinds],
                  Object.fromEntries(definitionKinds.map((kind) => [kind, { type: 'array', items: schema('DefinitionSummary') }])),
                ),
                lastReload,
              }),
            ),
          },
          ...errors,
        },
      },
    },
    '/api/webhooks': {
      get: {
        operationId: 'listWebhooks',
        summary: 'The webhooks: URL, action, what they touch, active, whether they have a secret (scope console).',
        tags: ['console'],
        responses: {
          200: {
            description: 'The webhooks.',
            content: json(closed(['webhooks'], { webhooks: { type: 'array', items: schema('WebhookSummary') } })),
          },
          ...errors,
        },
      },
    },
    '/api/systems': {
      get: {
        operationId: 'listSystems',
        summary: 'The systems the client may use: connector, capabilities, objects and queries (scope console).',
        tags: ['console'],
        responses: {
          200: {
            description: 'The systems.',
            content: json(closed(['systems'], { systems: { type: 'array', items: schema('SystemSummary') } })),
          },
          ...errors,
        },
      },
    },
    '/api/systems/{systemId}': {
      get: {
        operationId: 'getSystem',
        summary: "A system's objects with their key, fields and typed groups, and its queries' columns (scope console).",
        tags: ['console'],
        parameters: [{ name: 'systemId', in: 'path', required: true, schema: { type: 'string' }, description: 'The system (any case).' }],
        responses: {
          200: { description: 'The system.', content: json(schema('SystemDetail')) },
          401: ref('Unauthorized'),
          403: ref('Forbidden'),
          404: ref('NotFound'),
          default: ref('Problem'),
        },
      },
    },
  };
}
