/**
 * The JSON Schemas of the definition kinds, assembled with the connectors' own option schemas.
 * A System is checked against the variant of its connector, so `connection` and connector-specific
 * object options are validated by the connector's spec while unknown keys still fail
 * (`additionalProperties: false` everywhere).
 */
import { readFileSync } from 'node:fs';
import type { ConnectorSpec, JsonSchema } from '../connector-spec.js';
import type { DefinitionKind } from '../types.js';

/** The definition kinds, the shared pieces, and Test: the kind of `syncline test`'s files, which is no definition. */
export type SchemaName = DefinitionKind | 'common' | 'Test';

const schemaFiles: Record<SchemaName, string> = {
  common: 'common.schema.json',
  System: 'system.schema.json',
  Sync: 'sync.schema.json',
  Webhook: 'webhook.schema.json',
  Flow: 'flow.schema.json',
  ApiClient: 'api-client.schema.json',
  Test: 'test.schema.json',
};

export function readKindSchema(kind: SchemaName): JsonSchema {
  const url = new URL(`../schemas/${schemaFiles[kind]}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as JsonSchema;
}

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema is walked by keyword, and a keyword's value may be any JSON.
type Mutable = Record<string, any>;

/**
 * The `retries` a Sync gets when it sets none, as sync.schema.json declares them: the loader fills
 * them in from there and the editor schema shows them, so whatever else needs them (the retry of
 * a flow item, which has no settings of its own) reads them here instead of restating them.
 */
export const defaultSyncRetries: Readonly<{ max: number; backoff: string; maxBackoff: string }> = (() => {
  const retries = (readKindSchema('Sync') as Mutable).properties.retries.properties;
  return Object.freeze({ max: retries.max.default, backoff: retries.backoff.default, maxBackoff: retries.maxBackoff.default });
})();

/** The System schema for one connector: its connection schema and its object/group options merged in. */
export function systemSchemaFor(spec: ConnectorSpec, connectorNames: readonly string[]): JsonSchema {
  const schema = structuredClone(readKindSchema('System')) as Mutable;
  schema.$id = `https://syncline.dev/schemas/system-${spec.name}.json`;
  schema.properties.connector = { ...schema.properties.connector, enum: [...connectorNames] };
  schema.properties.connection = structuredClone(spec.connectionSchema);
  const object = schema.properties.objects.additionalProperties;
  Object.assign(object.properties, structuredClone(spec.objectProperties));
  object.required = [...object.required, ...spec.requiredObjectProperties];
  const group = object.properties.groups.additionalProperties;
  Object.assign(group.properties, structuredClone(spec.groupProperties));
  group.required = [...group.required, ...spec.requiredGroupProperties];
  return schema;
}

/**
 * The System schema used when the connector is unknown: it reports the connector and leaves the
 * connector-specific parts unchecked, so one mistake gives one problem, not dozens.
 */
export function systemSchemaForUnknownConnector(connectorNames: readonly string[]): JsonSchema {
  const schema = structuredClone(readKindSchema('System')) as Mutable;
  schema.$id = 'https://syncline.dev/schemas/system-unknown-connector.json';
  schema.properties.connector = { ...schema.properties.connector, enum: [...connectorNames] };
  schema.properties.objects = { type: 'object', description: schema.properties.objects.description };
  return schema;
}
