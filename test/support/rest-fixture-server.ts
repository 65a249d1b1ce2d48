/**
 * A small REST server of our own (node:http, in the test process, on a free loopback port) for
 * what json-server cannot show: paging styles it lacks (a cursor in the body, next links as
 * absolute URLs, in a header or in the body, a next link to another origin), and the faults a web
 * client must survive — 429 and 503 with Retry-After, slow answers, oversized answers, error
 * bodies that hold a secret. Tests add routes; every request is logged with its time.
 *
 * `collection()` serves an in-memory collection with list (cursor or link paging, equality
 * filters it can be told to ignore), get, create (with a generated id), PATCH and PUT, enough for
 * the conformance suite.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoggedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** The body parsed as JSON, else its text; undefined when empty. */
  body: unknown;
  /** The body as it was sent. */
  text: string;
  /** performance.now() when it arrived. */
  at: number;
}

export type Handler = (request: LoggedRequest, response: ServerResponse) => void | Promise<void>;

export interface FixtureServer {
  /** http://127.0.0.1:port */
  base: string;
  requests: LoggedRequest[];
  /** Answers `method path` (path without query; `*` ends a prefix, e.g. /customers/*) with `handler`. */
  route(method: string, path: string, handler: Handler): void;
  /** Requests being answered now, and the most at once since the start or the last reset (for concurrency bounds). */
  inFlight(): { now: number; most: number };
  resetInFlight(): void;
  close(): Promise<void>;
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

async function readText(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parsedBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const routes: Array<{ method: string; path: string; handler: Handler }> = [];
  const requests: LoggedRequest[] = [];
  const flight = { now: 0, most: 0 };
  const server: Server = createServer((request, response) => {
    flight.now += 1;
    flight.most = Math.max(flight.most, flight.now);
    response.on('close', () => (flight.now -= 1));
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://fixture');
      const text = await readText(request);
      const logged: LoggedRequest = {
        method: request.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        body: parsedBody(text),
        text,
        at: performance.now(),
      };
      requests.push(logged);
      const route = routes.find(
        (candidate) =>
          candidate.method === logged.method &&
          (candidate.path.endsWith('*') ? logged.path.startsWith(candidate.path.slice(0, -1)) : candidate.path === logged.path),
      );
      if (route === undefined) return sendJson(response, 404, { error: 'no such route' });
      try {
        await route.handler(logged, response);
      } catch (error) {
        if (!response.headersSent) sendJson(response, 500, { error: String(error) });
      }
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    requests,
    route: (method, path, handler) => routes.unshift({ method, path, handler }),
    inFlight: () => ({ ...flight }),
    resetInFlight: () => {
      flight.most = flight.now;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

export interface CollectionOptions {
  /** The property records are found by (default id, generated as max + 1 on create when absent). */
  idProperty?: string;
  /** cursor: `{ data, meta: { total, next_cursor } }`, the cursor an opaque token; link: a bare array, and a Link header (absolute URLs). */
  paging: 'cursor' | 'link';
  /** Query parameters it filters by equality; others (and all of them, when ignoreFilters) are ignored. */
  ignoreFilters?: boolean;
}

/** Serves `records` under `/name` as a REST collection; the array is the store, changed by writes. */
export function collection(server: FixtureServer, name: string, records: Array<Record<string, unknown>>, options: CollectionOptions): void {
  const idProperty = options.idProperty ?? 'id';
  const pathOf = (request: LoggedRequest) => decodeURIComponent(request.path.slice(`/${name}/`.length));
  const find = (id: string) => records.find((record) => String(record[idProperty]) === id);
  server.route('GET', `/${name}`, (request, response) => {
    const control = new Set(['cursor', 'limit', 'page_size']);
    let selected = records;
    if (!options.ignoreFilters) {
      for (const [key, value] of request.query) {
        if (!control.has(key)) selected = selected.filter((record) => String(record[key]) === value);
      }
    }
    const size = Number(request.query.get('limit') ?? request.query.get('page_size') ?? 10);
    // The cursor is opaque to the client: the offset, encoded.
    const cursor = request.query.get('cursor');
    const start = cursor === null ? 0 : Number(Buffer.from(cursor, 'base64url').toString('utf8').replace('at:', ''));
    const page = selected.slice(start, start + size);
    const nextStart = start + page.length < selected.length ? start + page.length : undefined;
    const token = nextStart === undefined ? null : Buffer.from(`at:${nextStart}`).toString('base64url');
    if (options.paging === 'cursor') return sendJson(response, 200, { data: page, meta: { total: selected.length, next_cursor: token } });
    const next = new URL(`${server.base}/${name}`);
    for (const [key, value] of request.query) if (key !== 'cursor') next.searchParams.set(key, value);
    if (token !== null) next.searchParams.set('cursor', token);
    return sendJson(response, 200, page, token === null ? {} : { link: `<${next.href}>; rel="next"` });
  });
  server.route('GET', `/${name}/*`, (request, response) => {
    const record = find(pathOf(request));
    return record === undefined ? sendJson(response, 404, { error: 'not found' }) : sendJson(response, 200, record);
  });
  server.route('POST', `/${name}`, (request, response) => {
    const body = { ...(request.body as Record<string, unknown>) };
    if (body[idProperty] === undefined) body[idProperty] = Math.max(0, ...records.map((record) => Number(record[idProperty]) || 0)) + 1;
    if (find(String(body[idProperty])) !== undefined) return sendJson(response, 409, { error: 'exists' });
    records.push(body);
    return sendJson(response, 201, body);
  });
  for (const method of ['PATCH', 'PUT']) {
    server.route(method, `/${name}/*`, (request, response) => {
      const record = find(pathOf(request));
      if (record === undefined) return sendJson(response, 404, { error: 'not found' });
      const id = record[idProperty];
      if (method === 'PUT') for (const key of Object.keys(record)) delete record[key];
      Object.assign(record, request.body as Record<string, unknown>, { [idProperty]: id });
      return sendJson(response, 200, record);
    });
  }
}
