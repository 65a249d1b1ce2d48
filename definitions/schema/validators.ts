/**
 * Compiled validators of every kind (and of System per connector). Compiled once per process:
 * compiling is the expensive part of Ajv, validating is cheap.
 */
import { Ajv2020, type Options, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ConnectorSpecs } from '../connector-spec.js';
import { definitionKinds, type DefinitionKind } from '../types.js';
import { readKindSchema, systemSchemaFor, systemSchemaForUnknownConnector } from './kind-schemas.js';

// ajv-formats is CommonJS with a `default` export; under ESM interop the function sits on `.default`.
type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

export interface DefinitionValidators {
  /** The validator for a document of `kind`; Systems get their connector's variant. */
  forDocument(kind: DefinitionKind, value: Record<string, unknown>): ValidateFunction;
  connectorNames: readonly string[];
}

const compiled = new WeakMap<ConnectorSpecs, DefinitionValidators>();

/** The validators for these connectors, compiled on the first call for them. */
export function definitionValidators(specs: ConnectorSpecs): DefinitionValidators {
  let validators = compiled.get(specs);
  if (validators === undefined) {
    validators = build(specs);
    compiled.set(specs, validators);
  }
  return validators;
}

/** An Ajv instance set up the way definitions are checked: all errors, defaults filled in. */
export function createAjv(overrides: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, useDefaults: true, verbose: true, ...overrides });
  addFormats(ajv);
  return ajv;
}

let testValidator: ValidateFunction | undefined;

/** The validator of test files (kind Test, `*.test.yaml`), compiled on the first call. */
export function testFileValidator(): ValidateFunction {
  if (testValidator === undefined) {
    const ajv = createAjv();
    ajv.addSchema(readKindSchema('common'));
    testValidator = ajv.compile(readKindSchema('Test'));
  }
  return testValidator;
}

function build(specs: ConnectorSpecs): DefinitionValidators {
  const connectorNames = [...specs.keys()];
  const ajv = createAjv();
  ajv.addSchema(readKindSchema('common'));
  const byKind = new Map<string, ValidateFunction>();
  for (const kind of definitionKinds) if (kind !== 'System') byKind.set(kind, ajv.compile(readKindSchema(kind)));
  const systemByConnector = new Map<string, ValidateFunction>();
  for (const [name, spec] of specs) systemByConnector.set(name, ajv.compile(systemSchemaFor(spec, connectorNames)));
  const systemUnknownConnector = ajv.compile(systemSchemaForUnknownConnector(connectorNames));
  return {
    connectorNames,
    forDocument(kind, value) {
      if (kind === 'System') return systemByConnector.get(String(value.connector)) ?? systemUnknownConnector;
      return byKind.get(kind)!;
    },
  };
}
