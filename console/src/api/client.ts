/**
 * The console's API client: every call carries the signed-in token as a bearer header and
 * answers typed values (types.ts), or throws an ApiError holding the problem the API answered.
 * Each call names the scope its route needs, so a 403 can say which one the token lacks.
 */
import type {
  AddActionBody,
  ConsoleOverview,
  DefinitionsAnswer,
  Problem,
  QueryAnswer,
  QueryBody,
  QueueItem,
  QueuePage,
  QueueStatus,
  ReadAnswer,
  ReadParameters,
  StartType,
  WebhookLogEntry,
  WebhookLogPage,
  WebhookReplay,
  WebhookSummary,
} from './types.js';

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

async function call<T>(token: string, scope: Scope, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
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
  return (await answer.json()) as T;
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

export interface QueueFilter {
  sync?: string;
  status?: QueueStatus | '';
  startType?: StartType | '';
  cursor?: string;
  limit?: number;
}

const hook = (id: string) => `/api/console/webhooks/${encodeURIComponent(id)}`;

/** The routes the console uses, bound to one token. */
export function apiFor(token: string) {
  return {
    overview: () => call<ConsoleOverview>(token, 'console', 'GET', '/api/console/overview'),
    queue: (filter: QueueFilter) => {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(filter)) if (value !== undefined && value !== '') query.set(name, String(value));
      const text = query.toString();
      return call<QueuePage>(token, 'queue:read', 'GET', `/api/queue${text ? `?${text}` : ''}`);
    },
    item: (id: string) => call<QueueItem>(token, 'queue:read', 'GET', `/api/GetAction/${encodeURIComponent(id)}`),
    /** The item's progress as it runs: `item`, then `progress` on every change, then `done` (each the item as GetAction answers it). */
    itemEvents: (id: string, onEvent: (event: StreamEvent) => void, signal: AbortSignal) =>
      stream(token, 'queue:read', `/api/queue/${encodeURIComponent(id)}/events`, undefined, onEvent, signal),
    cancel: (id: string) => call<QueueItem>(token, 'queue:write', 'POST', `/api/queue/${encodeURIComponent(id)}/cancel`),
    retry: (id: string) => call<QueueItem>(token, 'queue:write', 'POST', `/api/queue/${encodeURIComponent(id)}/retry`),
    addAction: (body: AddActionBody) => call<QueueItem>(token, 'queue:write', 'POST', '/api/AddAction', body),
    definitions: () => call<DefinitionsAnswer>(token, 'console', 'GET', '/api/definitions'),
    /** The objects of every system the token may use: the record schemas (Record.{system}.{object}) of the interface description. */
    objects: async () => {
      const document = await call<{ components: { schemas: Record<string, unknown> } }>(token, 'console', 'GET', '/api/openapi.json');
      const objects: Record<string, string[]> = {};
      for (const name of Object.keys(document.components.schemas)) {
        const match = /^Record\.([^.]+)\.(.+)$/.exec(name);
        if (match) (objects[match[1]!] ??= []).push(match[2]!);
      }
      return objects;
    },
    read: (system: string, object: string, parameters: ReadParameters) =>
      call<ReadAnswer>(
        token,
        'systems:read',
        'POST',
        `/api/RunConnectionGetData/${encodeURIComponent(system)}/${encodeURIComponent(object)}`,
        parameters,
      ),
    query: (system: string, body: QueryBody) =>
      call<QueryAnswer>(token, 'systems:query', 'POST', `/api/RunConnectionGetQueryData/${encodeURIComponent(system)}`, body),
    webhooks: () => call<{ webhooks: WebhookSummary[] }>(token, 'console', 'GET', '/api/webhooks'),
    webhookLog: (id: string, pinned = false) =>
      call<WebhookLogPage>(token, 'console', 'GET', `${hook(id)}/log?limit=50${pinned ? '&pinned=true' : ''}`),
    webhookEntry: (id: string, entry: string) =>
      call<WebhookLogEntry>(token, 'console', 'GET', `${hook(id)}/log/${encodeURIComponent(entry)}`),
    pin: (id: string, entry: string, pinned: boolean) =>
      call<WebhookLogEntry>(token, 'console', pinned ? 'POST' : 'DELETE', `${hook(id)}/log/${encodeURIComponent(entry)}/pin`),
    replay: (id: string, entry: string) =>
      call<WebhookReplay>(token, 'console', 'POST', `${hook(id)}/log/${encodeURIComponent(entry)}/replay`),
    testWebhook: (id: string, body: { data: unknown } | { pin: string }, onEvent: (event: StreamEvent) => void, signal: AbortSignal) =>
      stream(token, 'console', `${hook(id)}/test`, body, onEvent, signal),
  };
}

export type Api = ReturnType<typeof apiFor>;
