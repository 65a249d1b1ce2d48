/**
 * The console's hand-written API types (console/src/api/types.ts) against the OpenAPI schemas of
 * the same name: each interface has exactly the schema's properties, optional exactly where the
 * schema does not require them. Read with the TypeScript compiler, so the check sees the file as
 * the console's build does. When this fails, the API changed and the console must follow.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import type { Snapshot } from '../../../definitions/snapshot.js';
import { connectionPaths } from '../../../runtime/http/openapi/connection-paths.js';
import { consoleInfoPaths, consoleInfoSchemas } from '../../../runtime/http/openapi/console-info-paths.js';
import { queueSchemas } from '../../../runtime/http/openapi/queue-paths.js';
import { webhookConsolePaths, webhookConsoleSchemas } from '../../../runtime/http/openapi/webhook-paths.js';
import { sharedComponents } from '../../../runtime/http/openapi/shared-components.js';
import { addActionBody } from '../../../runtime/http/queue-body.js';
import { repoRoot } from '../../support/doc-examples.js';

interface ObjectSchema {
  required?: string[];
  properties: Record<string, ObjectSchema & { items?: ObjectSchema }>;
}

type Schemas = Record<string, ObjectSchema>;
const components = {
  ...sharedComponents(1).schemas,
  ...queueSchemas(),
  ...consoleInfoSchemas(),
  ...webhookConsoleSchemas(),
} as unknown as Schemas;
const overviewPath = consoleInfoPaths()['/api/console/overview'] as {
  get: { responses: { 200: { content: { 'application/json': { schema: ObjectSchema } } } } };
};
const overview = overviewPath.get.responses[200].content['application/json'].schema;
type Answered = { post?: Answer; get?: Answer };
type Answer = { responses: { 200: { content: { 'application/json': { schema: ObjectSchema } } } } };
const answerOf = (paths: Record<string, unknown>, path: string) => {
  const route = paths[path] as Answered;
  return (route.post ?? route.get)!.responses[200].content['application/json'].schema;
};
// The connection routes' answers are the same whatever is loaded; no system is needed to read them.
const connections = connectionPaths({ systems: new Map() } as unknown as Snapshot);
type JsonAnswer = { responses: { 200: { content: { 'application/json': { schema: ObjectSchema } } } } };
const webhookRoutes = webhookConsolePaths({ webhooks: new Map() } as unknown as Parameters<typeof webhookConsolePaths>[0]) as Record<
  string,
  Record<string, JsonAnswer>
>;
const webhookAnswerOf = (path: string, method: string) =>
  webhookRoutes[`/api/console/webhooks/{webhookId}${path}`]![method]!.responses[200].content['application/json'].schema;

/** The schema each interface mirrors: a component, or one inline in a route or another schema. */
const schemaOf: Record<string, ObjectSchema> = {
  Problem: components.Problem!,
  QueueItem: components.QueueItem!,
  QueueListItem: components.QueueListItem!,
  QueuePage: components.QueuePage!,
  QueueStatistics: components.QueueItem!.properties.Statistics!,
  QueueError: components.QueueItem!.properties.Errors!.items!,
  AddActionBody: addActionBody.schema as unknown as ObjectSchema,
  ReloadProblem: components.ReloadProblem!,
  LastReload: components.LastReload!,
  Schedule: components.Schedule!,
  Daemon: overview.properties.daemons!.properties.daemons!.items!,
  ConsoleOverview: overview,
  DefinitionSummary: components.DefinitionSummary!,
  DefinitionsAnswer: answerOf(consoleInfoPaths(), '/api/definitions'),
  FieldDescription: components.FieldDescription!,
  GroupDescription: components.GroupDescription!,
  ReadAnswer: answerOf(connections, '/api/RunConnectionGetData/{system_key}/{object_type}'),
  QueryColumn: components.QueryColumn!,
  QueryBody: components.QueryBody!,
  QueryAnswer: answerOf(connections, '/api/RunConnectionGetQueryData/{system_key}'),
  WebhookSummary: components.WebhookSummary!,
  TickerMessage: components.TickerMessage!,
  WebhookLogSummary: components.WebhookLogSummary!,
  WebhookLogEntry: components.WebhookLogEntry!,
  WebhookPayload: components.WebhookLogEntry!.properties.payload!,
  WebhookLogPage: webhookAnswerOf('/log', 'get'),
  WebhookResponse: components.WebhookResponse!,
  WebhookReplay: webhookAnswerOf('/log/{entryId}/replay', 'post'),
};

/** interface name → property → optional, as the console's types file declares them. */
function declaredInterfaces(): Map<string, Map<string, boolean>> {
  const path = join(repoRoot, 'console', 'src', 'api', 'types.ts');
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found = new Map<string, Map<string, boolean>>();
  for (const statement of source.statements) {
    if (!ts.isInterfaceDeclaration(statement)) continue;
    const members = new Map<string, boolean>();
    for (const member of statement.members) {
      if (ts.isPropertySignature(member)) members.set(member.name.getText(source), member.questionToken !== undefined);
    }
    found.set(statement.name.text, members);
  }
  return found;
}

test('every interface of the console types mirrors its OpenAPI schema: the same properties, optional where not required', () => {
  const declared = declaredInterfaces();
  assert.deepEqual([...declared.keys()].sort(), Object.keys(schemaOf).sort(), 'each interface names the schema it mirrors here');
  for (const [name, schema] of Object.entries(schemaOf)) {
    const members = declared.get(name)!;
    const required = new Set(schema.required ?? []);
    const expected = Object.fromEntries(Object.keys(schema.properties).map((property) => [property, !required.has(property)]));
    assert.deepEqual(Object.fromEntries(members), expected, `${name} in console/src/api/types.ts`);
  }
});
