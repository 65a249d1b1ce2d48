/**
 * The connected systems as the console shows them: each with its connector, what the connector
 * can do, and its objects and queries — and, for one system, every object's key, fields and typed
 * groups as RunConnectionGetData describes them, so an operator sees what an object holds before
 * reading it. Never a system's connection (it holds credentials) nor a query's statement: the
 * shape of the data, not how the system is reached.
 */
import type { ConnectorCapabilities } from '../../definitions/connector-spec.js';
import type { ObjectDescription } from '../../connectors/connection.js';
import type { Snapshot, SystemEntry } from '../../definitions/snapshot.js';
import type { FieldType } from '../../definitions/types.js';
import type { DefinitionsPaths } from './definition-list.js';
import type { Visibility } from './visibility.js';

export interface SystemSummary {
  id: string;
  name?: string;
  description?: string;
  /** The `connector:` of the definition (sql, odata, http, file). */
  connector: string;
  /** The system refuses writes (the definition says readOnly). */
  readOnly: boolean;
  capabilities: ConnectorCapabilities;
  objects: string[];
  queries: string[];
  file: string;
  line: number;
}

export interface ObjectDetail extends ObjectDescription {
  description?: string;
  /** Writes to the object are refused (it, or its system, is read-only). */
  readOnly: boolean;
}

export interface QueryDetail {
  name: string;
  description?: string;
  columns: Array<{ name: string; type: FieldType }>;
}

export interface SystemDetail extends Omit<SystemSummary, 'objects' | 'queries'> {
  objects: ObjectDetail[];
  queries: QueryDetail[];
}

/** The systems the client may use, in the order they were loaded. */
export function systemList(snapshot: Snapshot, visible: Visibility, paths: DefinitionsPaths): SystemSummary[] {
  return [...snapshot.systems.values()]
    .filter((entry) => visible.system(entry.definition.id))
    .map((entry) => ({
      ...summaryOf(entry, paths),
      objects: Object.keys(entry.definition.objects),
      queries: Object.keys(entry.definition.queries),
    }));
}

/**
 * One system with its objects described by `describe` (the connection's own description, the one
 * RunConnectionGetData answers) and its queries' columns.
 */
export function systemDetail(entry: SystemEntry, paths: DefinitionsPaths, describe: (object: string) => ObjectDescription): SystemDetail {
  const d = entry.definition;
  return {
    ...summaryOf(entry, paths),
    objects: Object.entries(d.objects).map(([name, object]) => ({
      ...describe(name),
      ...(object.description === undefined ? {} : { description: object.description }),
      readOnly: d.readOnly === true || object.readOnly === true,
    })),
    queries: Object.entries(d.queries).map(([name, query]) => ({
      name,
      ...(query.description === undefined ? {} : { description: query.description }),
      columns: query.columns.map((column) => ({ name: column.name, type: column.type })),
    })),
  };
}

function summaryOf({ definition: d, origin, capabilities }: SystemEntry, paths: DefinitionsPaths) {
  return {
    id: d.id,
    ...(d.name === undefined ? {} : { name: d.name }),
    ...(d.description === undefined ? {} : { description: d.description }),
    connector: d.connector,
    readOnly: d.readOnly === true,
    capabilities: { ...capabilities },
    file: paths.file(origin.file),
    line: origin.line,
  };
}
