/**
 * A System of the http connector on a fixture server, for the connector's own tests: one object
 * `Item` (key id; name, rank, email) with the options a test gives, and a connection of its own.
 */
import * as httpConnector from '../../../../connectors/http/index.js';
import type { Connection, ReadRequest, RecordData } from '../../../../connectors/connection.js';
import type { SystemDefinition } from '../../../../definitions/types.js';

export function itemSystem(
  base: string,
  options: Record<string, unknown>,
  connection: Record<string, unknown> = {},
  limits = {},
): SystemDefinition {
  return {
    kind: 'System',
    id: 'api',
    connector: 'http',
    connection: { baseUrl: base, retries: { max: 0 }, ...connection },
    limits,
    queries: {},
    objects: {
      Item: {
        key: ['id'],
        fields: { id: { type: 'Integer' }, name: { type: 'String' }, rank: { type: 'Integer' }, email: { type: 'String' } },
        ...options,
      },
    },
  } as unknown as SystemDefinition;
}

export function itemConnection(
  base: string,
  options: Record<string, unknown>,
  connection: Record<string, unknown> = {},
  limits = {},
): Connection {
  return httpConnector.createConnection(itemSystem(base, options, connection, limits), { baseDirectory: process.cwd() });
}

/** Items 1..n: name `item <id>`, rank id mod 5, email for even ids. */
export function items(n: number): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, index) => ({
    id: index + 1,
    name: `item ${index + 1}`,
    rank: (index + 1) % 5,
    email: (index + 1) % 2 === 0 ? `i${index + 1}@example.com` : null,
  }));
}

export async function readAll(connection: Connection, request: ReadRequest = {}): Promise<{ records: RecordData[]; pages: number[] }> {
  const records: RecordData[] = [];
  const pages: number[] = [];
  for await (const page of connection.read('Item', request)) {
    pages.push(page.length);
    records.push(...page);
  }
  return { records, pages };
}

export const ids = (records: readonly RecordData[]): number[] => records.map((record) => Number(record.id));
