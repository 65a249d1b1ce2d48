/**
 * What every connector publishes about itself. Validation (`syncline validate`) and the editor
 * schema read this one spec; each System of a snapshot carries its connector's capabilities, which
 * the HTTP routes check and the OpenAPI description states.
 */
import type { SystemDefinition } from './types.js';

export type JsonSchema = Record<string, unknown>;

/**
 * A problem a connector finds in one of its Systems, at a path of the definition (`['objects',
 * 'Order', 'records']`); the loader reports it at that place of the YAML, with its file, line and
 * column, as every other definition problem.
 */
export interface ConnectorProblem {
  path: ReadonlyArray<string | number>;
  /** A stable code, e.g. `invalid-template`. */
  code: string;
  /** Names the setting and the fix. */
  message: string;
  /** A warning: reported, and the definitions still load. */
  warning?: boolean;
}

/** What a connector can do; the HTTP layer answers 422 naming the capability it lacks. */
export interface ConnectorCapabilities {
  /** Filters are translated into the system's own query language instead of filtered in memory. */
  filterPushDown: boolean;
  limit: boolean;
  skip: boolean;
  order: boolean;
  count: boolean;
  /** Typed object groups (child records with a type, e.g. addresses of type main/invoice). */
  typedGroups: boolean;
  /** Writes of one record and its groups happen atomically. */
  transactions: boolean;
  /** Free queries can be run with the database itself refusing writes. */
  readOnlyQuery: boolean;
}

export interface ConnectorSpec {
  /** The `connector:` value of a System definition. */
  readonly name: string;
  readonly description: string;
  /** JSON Schema (draft 2020-12) of the System's `connection` block. */
  readonly connectionSchema: JsonSchema;
  /** Connector-specific properties of each entry under a System's `objects`. */
  readonly objectProperties: Readonly<Record<string, JsonSchema>>;
  /** Which of `objectProperties` an object must set. */
  readonly requiredObjectProperties: readonly string[];
  /** Connector-specific properties of each typed object group. */
  readonly groupProperties: Readonly<Record<string, JsonSchema>>;
  /** Which of `groupProperties` a group must set. */
  readonly requiredGroupProperties: readonly string[];
  readonly capabilities: Readonly<ConnectorCapabilities>;
  /**
   * Checks of a System that the connector's JSON Schemas cannot make — a JSONata expression that
   * does not compile, a path template naming an undeclared field, a setting that needs another.
   * Called once the System passed its schema; must not reach the system itself.
   */
  readonly checkSystem?: (system: SystemDefinition) => ConnectorProblem[];
}

/**
 * The specs of the registered connectors, by name: what definitions are checked against. The
 * definitions layer does not know the connectors; whoever loads definitions hands it these
 * (connectors/index.ts `loadConnectorSpecs`).
 */
export type ConnectorSpecs = ReadonlyMap<string, ConnectorSpec>;
