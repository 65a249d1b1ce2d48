/**
 * `syncline discover SYSTEM [--object NAME]` — the objects of a live system as definitions ready
 * to paste under its System's `objects:`: each table (or view) with its key and its fields typed
 * from the catalogue. The system is one of the definitions (its connection, with `${env:}` and
 * `${file:}` resolved as `serve` resolves them), so what is printed is what the connector sees.
 *
 * Exit 0 printed; 1 the definitions have problems or the system cannot be reached; 2 an unknown
 * system or object, or a bad definitions path.
 */
import { Document, type YAMLMap } from 'yaml';
import type { DiscoveredObject } from '../../connectors/connection.js';
import { ConnectionPool } from '../../connectors/connection-pool.js';
import { ConnectorError } from '../../connectors/connector-error.js';
import { connectionContext, defaults } from '../settings.js';
import { loadCommandDefinitions } from './load-command-definitions.js';

export interface DiscoverFlags {
  definitions?: string;
  object?: string;
}

export async function discoverCommand(systemId: string, flags: DiscoverFlags): Promise<number> {
  const definitionsDir = flags.definitions ?? process.env.SYNCLINE_DEFINITIONS ?? defaults.definitions;
  const loaded = await loadCommandDefinitions(definitionsDir, 'not discovering');
  if (typeof loaded === 'number') return loaded;
  const system = loaded.snapshot.systems.get(systemId)?.definition;
  if (system === undefined) {
    const known = [...loaded.snapshot.systems.keys()];
    process.stderr.write(`error: there is no system '${systemId}' in ${definitionsDir}; known: ${known.join(', ') || 'none'}\n`);
    return 2;
  }

  const connections = new ConnectionPool(connectionContext(definitionsDir));
  let discovered: DiscoveredObject[];
  try {
    const connection = await connections.get(system);
    await connection.check();
    discovered = await connection.discover();
  } catch (error) {
    if (!(error instanceof ConnectorError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 1;
  } finally {
    await connections.closeAll();
  }

  const objects =
    flags.object === undefined ? discovered : discovered.filter((object) => object.name.toLowerCase() === flags.object!.toLowerCase());
  if (objects.length === 0) {
    const what = flags.object === undefined ? 'no objects to discover' : `no object '${flags.object}'`;
    process.stderr.write(
      `error: system '${system.id}' has ${what}; it has: ${discovered.map((object) => object.name).join(', ') || 'none'}\n`,
    );
    return 2;
  }
  process.stdout.write(objectsYaml(system.id, objects));
  return 0;
}

/** An object name definitions accept (letters, digits, _; not starting with a digit) for a system's own name. */
function objectName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_]+/g, '_');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

/**
 * The objects as a System's `objects:` block. An object is named after the system's name for it
 * (rename it at will; its connector options — `table:`, `entitySet:`, `path:` — keep the link);
 * fields keep the system's order; an object without a key gets a comment where the key would be,
 * since an object needs one to be read by id or written, and what the connector could not express
 * is said in comments above the object.
 */
export function objectsYaml(systemId: string, objects: readonly DiscoveredObject[]): string {
  const document = new Document({ objects: {} });
  for (const object of objects) {
    const entry = document.createNode({ ...object.options }) as YAMLMap;
    // Keys and fields one per line, as definitions are written by hand: `id: { type: Integer }`.
    if (object.key.length > 0) entry.set('key', document.createNode(object.key, { flow: true }));
    const fields = object.fields.map((field) => [field.name, document.createNode({ type: field.type }, { flow: true })]);
    entry.set('fields', document.createNode(Object.fromEntries(fields)));
    if (object.notes !== undefined && object.notes.length > 0) entry.commentBefore = object.notes.map((note) => ` ${note}`).join('\n');
    document.setIn(['objects', objectName(object.name)], entry);
  }
  const text = document.toString({ lineWidth: 0 });
  const keyless = objects.filter((object) => object.key.length === 0).map((object) => object.name);
  const note = keyless.length > 0 ? `# No key: ${keyless.join(', ')}; add key: [field, …] before reading by id or writing.\n` : '';
  return `# Objects of system '${systemId}' as the system describes them; paste under the System's objects:.\n${note}${text}`;
}
