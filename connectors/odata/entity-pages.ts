/**
 * Entities of a collection page by page: each page is a request of its own for `$top` entities
 * after `$skip`, so nothing is held between pages and the caller's pace decides what is in memory.
 * A service that answers a page with fewer entities and an `@odata.nextLink` (server-driven paging:
 * it caps how many it sends at once) is followed link by link until the page is complete. Links
 * are read as the OData JSON format says — relative to the payload's context URL — and followed only
 * on the origin of connection.baseUrl (the web client refuses any other).
 *
 * A page that comes back short without a next link is the last one. A service whose next links go
 * round in circles — a link followed already, or page after page empty with a link on — is
 * stopped ('unavailable', NextLinks) instead of being followed for ever. So is one that ignores
 * `$skip` and answers entities it sent already, page after page: an entity whose key the read
 * passed on already is passed over (one moved a page on by an insert during the read is the same
 * entity), and pages that keep bringing mostly such entities stop the read
 * (records/repeated-records.ts has the rule).
 */
import { ConnectorError } from '../connector-error.js';
import { describeKey, RepeatedRecords, type RepeatedPage } from '../records/repeated-records.js';
import type { QueryParameters, WebClient, WebResponse } from '../web/index.js';

export interface CollectionQuery {
  /** A path below the service root: `Customers`, `Customers(7)/addresses`. */
  path: string;
  /** `$select`, `$filter`, `$orderby`…; `$top` and `$skip` are the pager's. */
  options: QueryParameters;
  /** The object read, for messages. */
  object: string;
  /**
   * The service's key, by which an entity sent again is known: the service keeps it unique (the
   * declared key need not be), `$select` always asks for it and pages are ordered by it.
   */
  key: readonly string[];
}

export interface PageWindow {
  skip: number;
  /** Infinity for all. */
  limit: number;
  /** Most entities asked for per request. */
  pageSize: number;
  signal?: AbortSignal;
}

type Entity = Record<string, unknown>;

/** The entities of a collection answer, and where the rest is. */
export function collectionOf(web: WebClient, response: WebResponse): { entities: Entity[]; next: string | undefined } {
  const body = response.json() as Record<string, unknown> | null;
  const value = body?.value;
  if (!Array.isArray(value)) {
    throw new ConnectorError(
      'unavailable',
      `system '${web.systemId}' answered ${response.url.pathname} with something that is not an OData collection`,
      {
        details: { system: web.systemId, path: response.url.pathname },
      },
    );
  }
  const link = body?.['@odata.nextLink'];
  let next: string | undefined;
  if (typeof link === 'string' && link !== '') {
    const context = body?.['@odata.context'];
    try {
      const base = typeof context === 'string' ? new URL(context, response.url) : response.url;
      next = new URL(link, base).href;
    } catch (error) {
      throw new ConnectorError('unavailable', `system '${web.systemId}' sent a next link that is not a URL`, {
        cause: error,
        details: { system: web.systemId, path: response.url.pathname },
      });
    }
  }
  // An entry that is no entity is the service failing, not a record to leave out: dropped, it made
  // the page look short, so the read ended there and the run was Complete without the rest.
  const broken = value.findIndex((entity) => entity === null || typeof entity !== 'object' || Array.isArray(entity));
  if (broken !== -1) {
    throw new ConnectorError(
      'unavailable',
      `system '${web.systemId}' answered ${response.url.pathname} with value[${broken}] ${value[broken] === null ? 'null' : `a ${Array.isArray(value[broken]) ? 'list' : typeof value[broken]}`}, not an entity; the read was stopped`,
      { details: { system: web.systemId, path: response.url.pathname } },
    );
  }
  return { entities: value as Entity[], next };
}

/** Empty pages in a row, each with a next link, after which the paging is judged stuck. */
export const MAX_EMPTY_PAGES = 3;

/** The next links one paging has followed, to stop one that goes round in circles. */
export class NextLinks {
  private readonly followed = new Set<string>();
  private emptyInRow = 0;

  constructor(private readonly web: WebClient) {}

  /** Throws when `next`, the link of a page of `count` entities, leads nowhere new. */
  check(next: string, count: number): void {
    this.emptyInRow = count === 0 ? this.emptyInRow + 1 : 0;
    const repeated = this.followed.has(next);
    if (repeated || this.emptyInRow >= MAX_EMPTY_PAGES) {
      const systemId = this.web.systemId;
      const why = repeated ? 'a next link it had sent already' : `${MAX_EMPTY_PAGES} empty pages in a row, each with a next link`;
      throw new ConnectorError('unavailable', `system '${systemId}' pages in circles (${why}); the read was stopped`, {
        details: { system: systemId, reason: 'next-link-loop' },
      });
    }
    this.followed.add(next);
  }
}

/** The entity of a single-entity answer (`Customers(7)`); anything but a JSON object is the service failing. */
export function entityOf(web: WebClient, response: WebResponse): Entity {
  const body = response.json();
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) return body as Entity;
  throw new ConnectorError(
    'unavailable',
    `system '${web.systemId}' answered ${response.url.pathname} with something that is not an entity`,
    {
      details: { system: web.systemId, path: response.url.pathname },
    },
  );
}

async function get(
  web: WebClient,
  path: string,
  query: QueryParameters | undefined,
  pageSize: number,
  signal?: AbortSignal,
): Promise<WebResponse> {
  const response = await web.request({
    path,
    ...(query === undefined ? {} : { query }),
    headers: { prefer: `odata.maxpagesize=${pageSize}` },
    ...(signal ? { signal } : {}),
  });
  if (!response.ok) throw response.failure();
  return response;
}

function repeatedEntities(web: WebClient, query: CollectionQuery, repeat: RepeatedPage): ConnectorError {
  const named = repeat.key === undefined ? 'entities without a key value' : `the first ${describeKey(query.object, query.key, repeat.key)}`;
  return new ConnectorError(
    'unavailable',
    `system '${web.systemId}' answered ${query.path} with entities it had sent already, page after page (${repeat.repeated} of the ${repeat.count} of the last page, ${named}), as if it ignored $skip; the read was stopped`,
    { details: { system: web.systemId, object: query.object, reason: 'repeated-entities' } },
  );
}

/** The collection's entities in the window, as pages of at most `pageSize` (each a request, or several when the service pages itself). */
export async function* entityPages(web: WebClient, query: CollectionQuery, window: PageWindow): AsyncGenerator<Entity[]> {
  const { signal, pageSize } = window;
  const repeats = new RepeatedRecords(query.key);
  let offset = window.skip;
  let remaining = window.limit;
  while (remaining > 0) {
    signal?.throwIfAborted();
    const wanted = Math.min(pageSize, remaining);
    const options: QueryParameters = { ...query.options, $top: wanted, ...(offset > 0 ? { $skip: offset } : {}) };
    let { entities, next } = collectionOf(web, await get(web, query.path, options, wanted, signal));
    const links = new NextLinks(web);
    let last = entities.length;
    while (entities.length < wanted && next !== undefined) {
      links.check(next, last);
      const more = collectionOf(web, await get(web, next, undefined, wanted, signal));
      last = more.entities.length;
      entities = entities.concat(more.entities);
      next = more.next;
    }
    // A service whose next link forgets the $top asked for may send more: the rest is the next page's.
    if (entities.length > wanted) entities = entities.slice(0, wanted);
    const fresh = repeats.fresh(entities, (repeat) => repeatedEntities(web, query, repeat));
    if (fresh.length > 0) yield fresh;
    // $skip counts positions in the collection: every entity received moves it, sent again or not.
    if (entities.length < wanted) return;
    offset += entities.length;
    remaining -= entities.length;
  }
}
