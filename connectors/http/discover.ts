/**
 * What discover can tell of a REST API: an API has no catalogue to list, so it samples answers.
 * Each declared object's first page of `list` proposes its fields (infer-fields.ts) with the
 * object's options as written, its declared key when the sample has it (else `id` when every record
 * has one); each path of connection.discover proposes an object named after its last segment,
 * `list: { path }`, and `records:` when the answer is an object with one list of records in it.
 * What could not be inferred — the other operations, paging, typed groups, keys — is said in notes.
 *
 * With neither declared objects nor connection.discover there is nothing to sample: that is an
 * error saying what to add, not an empty answer.
 */
import type { DiscoveredObject } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import type { WebClient } from '../web/index.js';
import type { HttpObject } from './http-object.js';
import { inferFields } from './infer-fields.js';
import { listAnswers } from './read.js';

/** Records a sample reads at most. */
export const SAMPLE_SIZE = 100;

const everyHas = (records: readonly Record<string, unknown>[], name: string): boolean =>
  records.length > 0 && records.every((record) => record[name] !== undefined && record[name] !== null);

async function sampleObject(web: WebClient, systemId: string, object: HttpObject): Promise<DiscoveredObject> {
  const records: Record<string, unknown>[] = [];
  const window = { size: Math.min(object.paging.pageSize, SAMPLE_SIZE), start: 0, want: SAMPLE_SIZE };
  for await (const page of listAnswers({ web, systemId, object }, {}, window)) records.push(...page);
  const groups = new Set([...object.groups.values()].map((group) => group.property));
  const { fields, notes } = inferFields(records, groups);
  const key = object.key.every((name) => everyHas(records, name)) ? [...object.key] : everyHas(records, 'id') ? ['id'] : [];
  if (records.length === 0) notes.unshift(`the list answered no records: no fields could be proposed`);
  for (const group of object.groups.values()) notes.push(`${group.property}: the typed group ${group.name}; keep its declaration`);
  return { name: object.name, options: { ...object.options }, fields, key, notes };
}

/** The list of records in an answer, and where it was: the answer, or its one property holding a list of objects. */
function locateRecords(body: unknown): { records: Record<string, unknown>[]; property?: string } | undefined {
  const isRecordList = (value: unknown): value is Record<string, unknown>[] =>
    Array.isArray(value) && value.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item));
  if (isRecordList(body)) return { records: body };
  if (typeof body !== 'object' || body === null) return undefined;
  const lists = Object.entries(body).filter(([, value]) => isRecordList(value));
  if (lists.length !== 1) return undefined;
  const [property, records] = lists[0]!;
  return { records: records as Record<string, unknown>[], property };
}

async function samplePath(web: WebClient, systemId: string, path: string): Promise<DiscoveredObject> {
  const name = path.split('/').filter(Boolean).pop() ?? path;
  const body = await web.getJson(path);
  const found = locateRecords(body);
  if (found === undefined) {
    throw new ConnectorError(
      'unavailable',
      `system '${systemId}': GET ${path} (connection.discover) answered no list of records, neither an array nor an object with one array of records in it`,
      { details: { system: systemId, path } },
    );
  }
  const records = found.records.slice(0, SAMPLE_SIZE);
  const { fields, notes } = inferFields(records);
  const key = everyHas(records, 'id') ? ['id'] : [];
  const options: Record<string, unknown> = { list: { path } };
  if (found.property !== undefined) options.records = found.property;
  notes.unshift(
    `sampled from ${records.length} record(s) of GET ${path}; add get, create, update and paging as the API documents them`,
    ...(key.length === 0 ? ['no id in every record: name the key'] : []),
  );
  return { name, options, fields, key, notes };
}

export async function discoverObjects(
  web: WebClient,
  systemId: string,
  objects: ReadonlyMap<string, HttpObject>,
  paths: readonly string[],
): Promise<DiscoveredObject[]> {
  if (objects.size === 0 && paths.length === 0) {
    throw new ConnectorError(
      'unsupported',
      `system '${systemId}' has nothing to discover: a REST API lists no collections of its own, so the http connector samples declared objects (their list path) and the paths of connection.discover; add connection.discover: [/customers, …] or an object with list: { path: … }`,
      { details: { system: systemId, connector: 'http' } },
    );
  }
  const discovered: DiscoveredObject[] = [];
  for (const object of objects.values()) discovered.push(await sampleObject(web, systemId, object));
  for (const path of paths) discovered.push(await samplePath(web, systemId, path));
  return discovered;
}
