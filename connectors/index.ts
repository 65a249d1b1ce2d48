/**
 * The connector registry: a frozen map of lazy loaders. Nothing registers itself as an import
 * side effect, and a connector's module (and so its database driver) is loaded only when a
 * definition names it.
 */
import type { ConnectorModule } from './connection.js';
import type { ConnectorSpec } from './spec.js';

export const connectorLoaders: Readonly<Record<string, () => Promise<ConnectorModule>>> = Object.freeze({
  sql: () => import('./sql/index.js'),
});

export const connectorNames: readonly string[] = Object.freeze(Object.keys(connectorLoaders).sort());

/** The module of a registered connector; undefined for a name no connector has. */
export async function loadConnector(name: string): Promise<ConnectorModule | undefined> {
  const loader = Object.hasOwn(connectorLoaders, name) ? connectorLoaders[name] : undefined;
  return loader === undefined ? undefined : loader();
}

/** Specs of every registered connector, by name. Specs are small and load no drivers. */
export async function loadConnectorSpecs(): Promise<ReadonlyMap<string, ConnectorSpec>> {
  const entries = await Promise.all(
    connectorNames.map(async (name) => [name, (await connectorLoaders[name]!()).spec] as const),
  );
  return new Map(entries);
}
