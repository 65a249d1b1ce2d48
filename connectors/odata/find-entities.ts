/**
 * The lookup of a write: the entities its match finds, with what an update needs of them — the
 * service's key, the `@odata.etag` (sent back as If-Match), and the entries of the typed groups
 * with their own keys.
 *
 * One write: by key as `GET Customers(7)` (a 404 is none) when it matches on exactly the service's
 * key, else `$filter` on its match fields and `$top=2` (two are enough to know it is ambiguous).
 * Many writes: one `$filter` per chunk of writes that match on the same fields, an `or` of their
 * conditions; which entity belongs to which write is decided again in JS with the evaluator's
 * equality (a match on null finds only null), as the sql connector does.
 *
 * The conditions are the filter compiler's own (`field = value`, `IS NULL` for null), so a match is
 * case-sensitive and typed exactly as a filter is. Match values are first put in the form a record
 * holds (`canonicalMatch`: '7' for an Integer is 7, a date-time in UTC ISO text) and a GUID in
 * lowercase on both sides — Edm.Guid is case-insensitive, and a service may send either case — so
 * that a value written another way finds the same entity, in the `$filter` and in the check in JS.
 */
import type { RecordData } from '../connection.js';
import { compareValues } from '../../definitions/expression/index.js';
import { checkFieldValue } from '../records/field-values.js';
import type { WebClient } from '../web/index.js';
import { decodeEntity } from './decode-entity.js';
import { collectionOf, entityOf, NextLinks } from './entity-pages.js';
import { compareWithConstant } from './filter/compare-field.js';
import { and, filterText, or, type Condition } from './filter/filter-condition.js';
import { nullPair } from './filter/filter-operand.js';
import { keyPredicate } from './odata-literals.js';
import type { BoundField, BoundObject } from './object-model.js';
import { objectFilterScope, selectOptions } from './record-query.js';
import type { Entity, PreparedWrite } from './write-payload.js';

/** Writes looked up in one request: an `or` of this many conditions stays well within URL limits. */
const LOOKUP_CHUNK = 40;

export interface LookupScope {
  web: WebClient;
  bound: BoundObject;
}

/**
 * A value of `field` as a record holds it (records/field-values.ts), a GUID in lowercase; a value
 * that does not fit the type is left as it is, for the filter compiler to judge as a filter would.
 */
export function canonicalValue(field: BoundField | undefined, value: unknown): unknown {
  if (value === null || value === undefined || field === undefined) return value;
  let canonical: unknown;
  try {
    canonical = checkFieldValue(field.field.type, value, { label: field.field.name });
  } catch {
    return value;
  }
  return field.edm === 'guid' && typeof canonical === 'string' ? canonical.toLowerCase() : canonical;
}

/** The match with each value in its canonical form (`canonicalValue`). */
export function canonicalMatch(bound: BoundObject, match: Readonly<RecordData>): RecordData {
  return Object.fromEntries(Object.entries(match).map(([name, value]) => [name, canonicalValue(bound.fields.get(name), value)]));
}

/** `field = value` for each match field, as a filter would say it. */
export function matchCondition(bound: BoundObject, match: Readonly<RecordData>): Condition {
  const scope = objectFilterScope(bound);
  return and(
    Object.entries(canonicalMatch(bound, match)).map(([name, value]) => {
      const ref = scope.field([name]);
      return value === null || value === undefined ? nullPair(ref).holds : compareWithConstant(ref, '=', value).holds;
    }),
  );
}

/** Whether an entity (as decoded) is one the match (canonical: `canonicalMatch`) finds. */
function matches(bound: BoundObject, record: RecordData, match: Readonly<RecordData>): boolean {
  return Object.entries(match).every(([name, value]) => {
    if (value === null || value === undefined) return record[name] === null || record[name] === undefined;
    return compareValues(canonicalValue(bound.fields.get(name), record[name]), value) === 0;
  });
}

/** The match's values as the service key's, when it matches on exactly that key and each value fits. */
function serviceKeyOf(bound: BoundObject, match: Readonly<RecordData>): Record<string, unknown> | undefined {
  const names = Object.keys(match);
  if (names.length !== bound.serviceKey.length || !bound.serviceKey.every((part) => names.includes(part.name))) return undefined;
  const key: Record<string, unknown> = {};
  for (const part of bound.serviceKey) {
    const field = bound.fields.get(part.name);
    if (field === undefined || match[part.name] === null || match[part.name] === undefined) return undefined;
    try {
      key[part.name] = canonicalValue(field, checkFieldValue(field.field.type, match[part.name], { label: part.name }));
    } catch {
      return undefined;
    }
  }
  return key;
}

/** What a lookup asks for: the fields, the key and the group entries with their keys. */
function lookupOptions(bound: BoundObject): Record<string, string> {
  return selectOptions(bound, true);
}

/** The entities (at most two) a single write's match finds. */
export async function findEntities(scope: LookupScope, prepared: PreparedWrite, signal?: AbortSignal): Promise<Entity[]> {
  const { web, bound } = scope;
  const match = prepared.match;
  if (match === undefined) return [];
  const key = serviceKeyOf(bound, match);
  if (key !== undefined) {
    const response = await web.request({
      path: `${bound.entitySet}${keyPredicate(bound.serviceKey, key)}`,
      query: lookupOptions(bound),
      ...(signal ? { signal } : {}),
    });
    if (response.status === 404) return [];
    if (!response.ok) throw response.failure();
    return [entityOf(web, response)];
  }
  const condition = matchCondition(bound, match);
  if (condition.kind === 'constant' && !condition.value) return [];
  const response = await web.request({
    path: bound.entitySet,
    query: { ...lookupOptions(bound), $filter: filterText(condition), $top: 2 },
    ...(signal ? { signal } : {}),
  });
  if (!response.ok) throw response.failure();
  return collectionOf(web, response).entities;
}

/**
 * The entities each write's match finds, by position (`[]` for a write that is undefined or
 * identifies nothing; two or more: ambiguous, so no more are looked for). A chunk's filter is read
 * following the service's next links, at most one page per write of the chunk: matches broad
 * enough to need more (many records, a service paging a few at a time) are looked up write by write
 * with `$top=2` instead, so a write never costs more than two lookup requests.
 */
export async function findEntitiesOfMany(
  scope: LookupScope,
  writes: ReadonlyArray<PreparedWrite | undefined>,
  signal?: AbortSignal,
): Promise<Entity[][]> {
  const { web, bound } = scope;
  const found: Entity[][] = writes.map(() => []);
  const bySignature = new Map<string, number[]>();
  writes.forEach((write, position) => {
    if (write?.match === undefined) return;
    const signature = Object.keys(write.match).sort().join('\u0000');
    bySignature.set(signature, [...(bySignature.get(signature) ?? []), position]);
  });
  for (const positions of bySignature.values()) {
    for (let start = 0; start < positions.length; start += LOOKUP_CHUNK) {
      const chunk = positions.slice(start, start + LOOKUP_CHUNK);
      const wanted = new Map(chunk.map((position) => [position, canonicalMatch(bound, writes[position]!.match!)]));
      const condition = or(chunk.map((position) => matchCondition(bound, writes[position]!.match!)));
      if (condition.kind === 'constant' && !condition.value) continue;
      let next: string | undefined = bound.entitySet;
      let query: Record<string, string> | undefined = { ...lookupOptions(bound), $filter: filterText(condition) };
      const links = new NextLinks(web);
      let pages = 0;
      const decided = () => chunk.every((position) => found[position]!.length >= 2);
      while (next !== undefined && pages < chunk.length && !decided()) {
        pages += 1;
        const response = await web.request({ path: next, ...(query === undefined ? {} : { query }), ...(signal ? { signal } : {}) });
        if (!response.ok) throw response.failure();
        const page = collectionOf(web, response);
        for (const entity of page.entities) {
          const record = decodeEntity(bound, entity);
          for (const [position, match] of wanted) if (matches(bound, record, match)) found[position]!.push(entity);
        }
        next = page.next;
        if (next !== undefined) links.check(next, page.entities.length);
        query = undefined;
      }
      if (next === undefined || decided()) continue;
      for (const position of chunk) if (found[position]!.length < 2) found[position] = await findEntities(scope, writes[position]!, signal);
    }
  }
  return found;
}
