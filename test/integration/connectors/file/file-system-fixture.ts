/**
 * A file System over a fresh temporary directory, for the connector's own tests: a definition
 * built from a few objects, a connection to it, and helpers to put files in place and read them
 * back without the connector.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as fileConnector from '../../../../connectors/file/index.js';
import type { Connection, ConnectionContext, ReadRequest, RecordData } from '../../../../connectors/connection.js';
import type { SystemDefinition } from '../../../../definitions/types.js';

export interface FileWorld {
  /** The definitions directory (the base of relative paths and the default root). */
  base: string;
  /** The System's directory, `base/data`. */
  data: string;
  system(objects: Record<string, Record<string, unknown>>, connection?: Record<string, unknown>): SystemDefinition;
  connect(system: SystemDefinition, context?: Partial<ConnectionContext>): Connection;
  put(path: string, content: string | Buffer): void;
  text(path: string, encoding?: BufferEncoding): string;
  close(): Promise<void>;
}

export function fileWorld(prefix = 'syncline-file-'): FileWorld {
  const base = mkdtempSync(join(tmpdir(), prefix));
  const data = join(base, 'data');
  mkdirSync(data);
  const connections: Connection[] = [];
  return {
    base,
    data,
    system: (objects, connection = {}) =>
      ({
        kind: 'System',
        id: 'files',
        connector: 'file',
        connection: { directory: 'data', ...connection },
        queries: {},
        objects,
      }) as unknown as SystemDefinition,
    connect(system, context = {}) {
      const connection = fileConnector.createConnection(system, { baseDirectory: base, ...context });
      connections.push(connection);
      return connection;
    },
    put(path, content) {
      mkdirSync(dirname(join(data, path)), { recursive: true });
      writeFileSync(join(data, path), content);
    },
    text: (path, encoding = 'utf8') => readFileSync(join(data, path), encoding),
    async close() {
      await Promise.all(connections.map((connection) => connection.close()));
      rmSync(base, { recursive: true, force: true });
    },
  };
}

export async function readAll(connection: Connection, object: string, request: ReadRequest = {}): Promise<RecordData[]> {
  const records: RecordData[] = [];
  for await (const page of connection.read(object, request)) records.push(...page);
  return records;
}
