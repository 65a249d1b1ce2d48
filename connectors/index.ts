/**
 * The connector registry: a frozen map of lazy loaders. Nothing registers itself as an import
 * side effect, and a connector's module (and so its database driver) is loaded only when a
 * definition names it.
 */
import type { ConnectorModule } from './connection.js';
import type { ConnectorSpecs } from '../definitions/connector-spec.js';

export const connectorLoaders: Readonly<Record<string, () => Promise<ConnectorModule>>> = Object.freeze({
  file: () => import('./file/index.js'),
  http: () => import('./http/index.js'),
  odata: () => import('./odata/index.js'),
  sql: () => import('./sql/index.js'),
});

export const connectorNames: readonly string[] = Object.freeze(Object.keys(connectorLoaders).sort());

/** The module of a registered connector; undefined for a name no connector has. */
export async function loadConnector(name: string): Promise<ConnectorModule | undefined> {
  const loader = Object.hasOwn(connectorLoaders, name) ? connectorLoaders[name] : undefined;
  return loader === undefined ? undefined : loader();
}

let specs: Promise<ConnectorSpecs> | undefined;

/**
 * Specs of every registered connector, by name: what definitions are loaded with. Specs are small
 * and load no drivers; the one map is kept, so validators compiled for it are reused.
 */
export function loadConnectorSpecs(): Promise<ConnectorSpecs> {
  specs ??= Promise.all(connectorNames.map(async (name) => [name, (await connectorLoaders[name]!()).spec] as const)).then(
    (entries) => new Map(entries),
  );
  return specs;
}
