/**
 * One self-contained JSON Schema for editors (yaml-language-server): every kind selected by its
 * `kind`, System selected further by its `connector`, shared pieces under `$defs`. Written by
 * `syncline schema` and committed as definitions/syncline.schema.json for the examples' modelines.
 * Test files (`*.test.yaml`, kind Test) use the same schema, so one modeline serves both.
 */
import type { ConnectorSpecs, JsonSchema } from '../connector-spec.js';
import { definitionKinds } from '../types.js';
import { readKindSchema, systemSchemaFor, type SchemaName } from './kind-schemas.js';

export const editorSchemaId = 'https://syncline.dev/schemas/syncline.json';

export function buildEditorSchema(specs: ConnectorSpecs): JsonSchema {
  const connectorNames = [...specs.keys()];
  const defs: Record<string, unknown> = { ...(readKindSchema('common').$defs as Record<string, unknown>) };
  const documentKinds: SchemaName[] = [...definitionKinds, 'Test'];
  for (const kind of documentKinds) {
    if (kind === 'System') continue;
    const { $defs: own, ...schema } = readKindSchema(kind) as JsonSchema & { $defs?: Record<string, JsonSchema> };
    defs[kind] = embed(schema, kind);
    // A kind's own pieces move to the top as `Kind.piece`: an embedded schema's `#` is the top.
    for (const [name, piece] of Object.entries(own ?? {})) defs[`${kind}.${name}`] = embed(piece, kind);
  }
  for (const [name, spec] of specs) defs[`System.${name}`] = embed(systemSchemaFor(spec, connectorNames), `System.${name}`);
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
    description:
      'A Syncline definition file: one or more documents, each a System, Sync, Webhook, Flow or ApiClient; or a test file (*.test.yaml) of kind Test.',
    type: 'object',
    // Each kind requires its own id; a Test may leave it out.
    required: ['kind'],
    properties: {
      kind: {
        enum: documentKinds,
        description: 'Definition kind: System, Sync, Webhook, Flow or ApiClient; Test in a test file (*.test.yaml).',
      },
    },
    allOf: documentKinds.map((kind) => ({
      if: { properties: { kind: { const: kind } }, required: ['kind'] },
      then: { $ref: `#/$defs/${kind}` },
    })),
    $defs: defs,
  };
}

/**
 * A kind schema (or one of its own pieces) as a `$defs` entry: no own $id/$schema, references to
 * the kind's own pieces renamed `Kind.piece`, references into common.json made local.
 */
function embed(schema: JsonSchema, kind: string): JsonSchema {
  const { $id: _id, $schema: _schema, ...rest } = schema;
  const text = JSON.stringify(rest).replaceAll('"#/$defs/', `"#/$defs/${kind}.`).replaceAll('"common.json#/$defs/', '"#/$defs/');
  return JSON.parse(text) as JsonSchema;
}
