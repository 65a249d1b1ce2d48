/**
 * One self-contained JSON Schema for editors (yaml-language-server): every kind selected by its
 * `kind`, System selected further by its `connector`, shared pieces under `$defs`. Written by
 * `syncline schema` and committed as definitions/syncline.schema.json for the examples' modelines.
 */
import type { ConnectorSpecs, JsonSchema } from '../connector-spec.js';
import { definitionKinds } from '../types.js';
import { readKindSchema, systemSchemaFor } from './kind-schemas.js';

export const editorSchemaId = 'https://syncline.dev/schemas/syncline.json';

export function buildEditorSchema(specs: ConnectorSpecs): JsonSchema {
  const connectorNames = [...specs.keys()];
  const defs: Record<string, unknown> = { ...(readKindSchema('common').$defs as Record<string, unknown>) };
  for (const kind of definitionKinds) {
    if (kind === 'System') continue;
    defs[kind] = embed(readKindSchema(kind));
  }
  for (const [name, spec] of specs) defs[`System.${name}`] = embed(systemSchemaFor(spec, connectorNames));
  defs.System = {
    type: 'object',
    required: ['kind', 'id', 'connector'],
    properties: { connector: { enum: connectorNames, description: 'Connector kind that talks to this system.' } },
    allOf: connectorNames.map((name) => ({
      if: { properties: { connector: { const: name } }, required: ['connector'] },
      then: { $ref: `#/$defs/System.${name}` },
    })),
  };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: editorSchemaId,
    title: 'Syncline definitions',
    description: 'A Syncline definition file: one or more documents, each a System, Sync, Webhook, Flow or ApiClient.',
    type: 'object',
    required: ['kind', 'id'],
    properties: {
      kind: { enum: [...definitionKinds], description: 'Definition kind: System, Sync, Webhook, Flow or ApiClient.' },
    },
    allOf: definitionKinds.map((kind) => ({
      if: { properties: { kind: { const: kind } }, required: ['kind'] },
      then: { $ref: `#/$defs/${kind}` },
    })),
    $defs: defs,
  };
}

/** A kind schema as a `$defs` entry: no own $id/$schema, references into common.json made local. */
function embed(schema: JsonSchema): JsonSchema {
  const { $id: _id, $schema: _schema, ...rest } = schema;
  return JSON.parse(JSON.stringify(rest).replaceAll('"common.json#/$defs/', '"#/$defs/')) as JsonSchema;
}
