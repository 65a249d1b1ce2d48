/**
 * The console's API client: every call carries the signed-in token as a bearer header and
 * answers the value its operation's answer type says (openapi-types.ts, generated from the API's
 * own description: each call names its operationId), or throws an ApiError holding the problem the
 * API answered. Each call names the scope its route needs, so a 403 can say which one the token lacks.
 */
import type { Operations } from './openapi-types.js';
import type { Answer, Problem, QueueFilter, WebhookLogFilter } from './types.js';

export type Scope = 'console' | 'queue:read' | 'queue:write' | 'systems:read' | 'systems:query';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
    /** The scope the route needs: what a 403 is missing. */
    readonly scope: Scope,
  ) {
    super(problem?.detail ?? `The API answered ${status}.`);
  }
}

/** What the user reads for a failed call: the missing scope for a 403, else the problem's detail. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (error.status === 403) return `This token lacks the scope ${error.scope}. ${error.problem?.detail ?? ''}`.trim();
  const fields = (error.problem?.errors ?? []).map((e) => `${e.path}: ${e.message}`);
  return [error.problem?.detail ?? error.message, ...fields].join(' ');
}

async function call<K extends keyof Operations>(
  token: string,
  scope: Scope,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: Operations[K]['body'],
): Promise<Answer<K>> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const answer = await fetch(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    // Same origin only, and no cache of answers that carry queue data.
    credentials: 'omit',
    cache: 'no-store',
  });
  if (!answer.ok) {
    const problem = (await answer.json().catch(() => undefined)) as Problem | undefined;
    throw new ApiError(answer.status, problem, scope);
  }
  return (await answer.json()) as Answer<K>;
}

/** `?name=value&…` of the parameters given (a list repeats its name), or nothing. */
function queryString(query: Record<string, string | number | readonly string[] | undefined> | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === '') continue;
    if (Array.isArray(value)) for (const each of value) search.append(name, each);
    else search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** One server-sent event: its name and its data, parsed as JSON. */
export interface StreamEvent {
  event: string;
  data: unknown;
}

/**
 * POSTs `body` (or GETs, without one) and reads the answer as server-sent events with fetch and a
 * ReadableStream (EventSource cannot send the Authorization header), handing each event to
 * `onEvent` as it arrives. Resolves when the server ends the stream; a refused call (400, 409…)
 * throws an ApiError as `call` does.
 */
async function stream(
  token: string,
  scope: Scope,
  path: string,
  body: unknown,
  onEvent: (event: StreamEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const answer = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    credentials: 'omit',
    cache: 'no-store',
    signal,
  });
  if (!answer.ok || !answer.body) {
    const problem = (await answer.json().catch(() => undefined)) as Problem | undefined;
    throw new ApiError(answer.status, problem, scope);
  }
  const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value.replace(/\r\n?/g, '\n');
    let end = buffered.indexOf('\n\n');
    while (end >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      end = buffered.indexOf('\n\n');
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      // Comment lines (keep-alives) carry no data and are no event.
      if (data.length === 0) continue;
      const text = data.join('\n');
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON: handed on as text.
      }
      onEvent({ event, data: parsed });
    }
  }
}

const hook = (id: string) => `/api/console/webhooks/${encodeURIComponent(id)}`;

const enc = encodeURIComponent;

/** The routes the console uses, bound to one token. */
export function apiFor(token: string) {
  return {
    overview: () => call<'consoleOverview'>(token, 'console', 'GET', '/api/console/overview'),
    queue: (filter: QueueFilter) => call<'ListQueueItems'>(token, 'queue:read', 'GET', `/api/queue${queryString(filter)}`),
    item: (id: string) => call<'GetAction'>(token, 'queue:read', 'GET', `/api/GetAction/${enc(id)}`),
    /** The item's progress as it runs: `item`, then `progress` on every change, then `done` (each the item as GetAction answers it). */
    itemEvents: (id: string, onEvent: (event: StreamEvent) => void, signal: AbortSignal) =>
      stream(token, 'queue:read', `/api/queue/${enc(id)}/events`, undefined, onEvent, signal),
    cancel: (id: string) => call<'CancelQueueItem'>(token, 'queue:write', 'POST', `/api/queue/${enc(id)}/cancel`),
    retry: (id: string) => call<'RetryQueueItem'>(token, 'queue:write', 'POST', `/api/queue/${enc(id)}/retry`),
    addAction: (body: Operations['AddAction']['body']) => call<'AddAction'>(token, 'queue:write', 'POST', '/api/AddAction', body),
    definitions: () => call<'listDefinitions'>(token, 'console', 'GET', '/api/definitions'),
    /** The systems the token may use, with their objects and queries by name. */
    systems: () => call<'listSystems'>(token, 'console', 'GET', '/api/systems'),
    /** One system with each object's key, fields and groups: what a read would answer, before any read. */
    system: (id: string) => call<'getSystem'>(token, 'console', 'GET', `/api/systems/${enc(id)}`),
    read: (system: string, object: string, parameters: Operations['RunConnectionGetData']['body']) =>
      call<'RunConnectionGetData'>(token, 'systems:read', 'POST', `/api/RunConnectionGetData/${enc(system)}/${enc(object)}`, parameters),
    query: (system: string, body: Operations['RunConnectionGetQueryData']['body']) =>
      call<'RunConnectionGetQueryData'>(token, 'systems:query', 'POST', `/api/RunConnectionGetQueryData/${enc(system)}`, body),
    webhooks: () => call<'listWebhooks'>(token, 'console', 'GET', '/api/webhooks'),
    webhookLog: (id: string, filter: WebhookLogFilter) =>
      call<'webhookLog'>(token, 'console', 'GET', `${hook(id)}/log${queryString(filter)}`),
    webhookEntry: (id: string, entry: string) => call<'webhookLogEntry'>(token, 'console', 'GET', `${hook(id)}/log/${enc(entry)}`),
    pin: (id: string, entry: string, pinned: boolean) =>
      pinned
        ? call<'pinWebhookLogEntry'>(token, 'console', 'POST', `${hook(id)}/log/${enc(entry)}/pin`)
        : call<'unpinWebhookLogEntry'>(token, 'console', 'DELETE', `${hook(id)}/log/${enc(entry)}/pin`),
    replay: (id: string, entry: string) => call<'replayWebhookLogEntry'>(token, 'console', 'POST', `${hook(id)}/log/${enc(entry)}/replay`),
    testWebhook: (id: string, body: Operations['testWebhook']['body'], onEvent: (event: StreamEvent) => void, signal: AbortSignal) =>
      stream(token, 'console', `${hook(id)}/test`, body, onEvent, signal),
  };
}

export type Api = ReturnType<typeof apiFor>;
