/**
 * Webhooks: the list (URL with a copy button, action, active state) and a webhook's page with the
 * test dialog — send typed JSON or a pinned log entry to the webhook for real and watch what was
 * sent, the raw response with its HTTP status, and the ticker live, followed by the run the call
 * queued until it is Complete or Failed — and the call log: an entry's redacted payload, ticker
 * and answer, pin, unpin and replay.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, type Api, type StreamEvent } from '../api/client.js';
import type { QueueItem, TickerMessage, WebhookLogFilter, WebhookResponse } from '../api/types.js';
import { isoOfLocal, useLoad, when } from '../use-load.js';
import { ErrorLine, PageTitle } from '../page-parts.js';

export function WebhooksPage({ api }: { api: Api }) {
  const { value, error, loading, reload } = useLoad(() => api.webhooks(), [api]);
  const [copied, setCopied] = useState('');

  const copy = async (url: string) => {
    const absolute = new URL(url, location.href).href;
    try {
      await navigator.clipboard.writeText(absolute);
      setCopied(`Copied ${absolute}`);
    } catch {
      setCopied(`Could not copy; select the URL and copy it: ${absolute}`);
    }
  };

  return (
    <>
      <PageTitle title="Webhooks" loading={loading} onRefresh={() => void reload()} />
      <ErrorLine error={error} />
      <p role="status" class="help">
        {copied}
      </p>
      {value && value.webhooks.length === 0 && <p>No webhooks are defined.</p>}
      {value && value.webhooks.length > 0 && (
        <table>
          <caption>Webhooks</caption>
          <thead>
            <tr>
              <th scope="col">Webhook</th>
              <th scope="col">Name</th>
              <th scope="col">URL</th>
              <th scope="col">Action</th>
              <th scope="col">Active</th>
              <th scope="col">Pinned entries</th>
            </tr>
          </thead>
          <tbody>
            {value.webhooks.map((webhook) => (
              <tr key={webhook.id}>
                <th scope="row">
                  <a href={`/console/webhooks/${encodeURIComponent(webhook.id)}`}>{webhook.id}</a>
                </th>
                <td>{webhook.name ?? '—'}</td>
                <td>
                  <code>{webhook.url}</code>{' '}
                  <button
                    type="button"
                    class="secondary"
                    aria-label={`Copy the URL of ${webhook.id}`}
                    onClick={() => void copy(webhook.url)}
                  >
                    Copy
                  </button>
                </td>
                <td>
                  {webhook.action}
                  {webhook.sync ? ` (${webhook.sync})` : webhook.flow ? ` (${webhook.flow})` : ''}
                </td>
                <td>{webhook.active ? 'yes' : 'no'}</td>
                <td class="number">{webhook.pinnedEntries}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

type Outcome = '' | '2xx' | '3xx' | '4xx' | '5xx';
type Origin = '' | 'call' | 'test' | 'replay';

/** The call log's filter form as typed: times as the browser's local date and time inputs hold them. */
interface LogDraft {
  outcome: Outcome;
  origin: Origin;
  from: string;
  to: string;
  pinned: boolean;
}

const emptyLogDraft: LogDraft = { outcome: '', origin: '', from: '', to: '', pinned: false };

/** The API's filter for a draft; a time it cannot read throws. */
function logFilterOf(draft: LogDraft): WebhookLogFilter {
  const from = isoOfLocal(draft.from, 'From');
  const to = isoOfLocal(draft.to, 'To');
  return {
    ...(draft.outcome ? { status: [draft.outcome] } : {}),
    ...(draft.origin ? { origin: [draft.origin] } : {}),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    ...(draft.pinned ? { pinned: 'true' as const } : {}),
  };
}

const logPageSize = 50;

export function WebhookPage({ api, id }: { api: Api; id: string }) {
  // Bumped after a test or a replay, so the call log shows the new entry.
  const [version, setVersion] = useState(0);
  const [draft, setDraft] = useState<LogDraft>(emptyLogDraft);
  const [filter, setFilter] = useState<WebhookLogFilter>({});
  const [draftError, setDraftError] = useState<string | undefined>();
  // The cursors of the pages before the current one, so "Newer" can go back without the API paging backwards.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const log = useLoad(
    () => api.webhookLog(id, { ...filter, ...(cursor ? { cursor } : {}), limit: logPageSize }),
    [api, id, filter, cursor, version],
  );
  // Every pinned entry, for the test dialog to offer (200, the most a page holds).
  const pinned = useLoad(() => api.webhookLog(id, { pinned: 'true', limit: 200 }), [api, id, version]);
  const changed = () => setVersion((v) => v + 1);

  return (
    <>
      <div class="title">
        <h1 tabIndex={-1}>Webhook {id}</h1>
        <a href="/console/webhooks">All webhooks</a>
      </div>
      <TestDialog api={api} id={id} pinned={pinned.value?.entries.map((entry) => entry.id) ?? []} onDone={changed} />
      <section aria-labelledby="call-log">
        <div class="title">
          <h2 id="call-log">Call log</h2>
          <button type="button" class="secondary" onClick={changed} disabled={log.loading}>
            Refresh log
          </button>
        </div>
        <form
          class="filters"
          aria-label="Filter the call log"
          onSubmit={(event) => {
            event.preventDefault();
            try {
              const next = logFilterOf(draft);
              setDraftError(undefined);
              setCursors([]);
              setFilter(next);
            } catch (failure) {
              setDraftError((failure as Error).message);
            }
          }}
        >
          <label>
            Outcome
            <select value={draft.outcome} onChange={(event) => setDraft({ ...draft, outcome: event.currentTarget.value as Outcome })}>
              <option value="">any</option>
              <option value="2xx">2xx success</option>
              <option value="3xx">3xx redirect</option>
              <option value="4xx">4xx refused</option>
              <option value="5xx">5xx failed</option>
            </select>
          </label>
          <label>
            Origin
            <select value={draft.origin} onChange={(event) => setDraft({ ...draft, origin: event.currentTarget.value as Origin })}>
              <option value="">any</option>
              <option value="call">call of the URL</option>
              <option value="test">test</option>
              <option value="replay">replay</option>
            </select>
          </label>
          <label>
            From
            <input
              type="datetime-local"
              step={1}
              value={draft.from}
              onInput={(event) => setDraft({ ...draft, from: event.currentTarget.value })}
            />
          </label>
          <label>
            To
            <input
              type="datetime-local"
              step={1}
              value={draft.to}
              onInput={(event) => setDraft({ ...draft, to: event.currentTarget.value })}
            />
          </label>
          <label class="check">
            <input
              type="checkbox"
              checked={draft.pinned}
              onChange={(event) => setDraft({ ...draft, pinned: event.currentTarget.checked })}
            />
            Pinned only
          </label>
          <button type="submit">Apply filters</button>
        </form>
        <ErrorLine error={draftError ?? log.error} />
        {log.value && log.value.entries.length === 0 && <p>No calls match.</p>}
        {log.value && log.value.entries.length > 0 && (
          <table>
            <caption>Calls, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Entry</th>
                <th scope="col">At</th>
                <th scope="col">Origin</th>
                <th scope="col">Status</th>
                <th scope="col">Queue item</th>
                <th scope="col">Pinned</th>
              </tr>
            </thead>
            <tbody>
              {log.value.entries.map((entry) => (
                <tr key={entry.id}>
                  <th scope="row">
                    <a href={`/console/webhooks/${encodeURIComponent(id)}?entry=${encodeURIComponent(entry.id)}`}>{entry.id.slice(0, 8)}</a>
                  </th>
                  <td>{when(entry.at)}</td>
                  <td>{entry.origin ?? 'call'}</td>
                  <td class="number">{entry.status}</td>
                  <td>{entry.queueItemId ? <a href={`/console/queue/${entry.queueItemId}`}>{entry.queueItemId.slice(0, 8)}</a> : '—'}</td>
                  <td>{entry.pinned ? 'pinned' : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <nav class="pager" aria-label="Call log pages">
          <button type="button" class="secondary" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Newer
          </button>
          <button
            type="button"
            class="secondary"
            disabled={!log.value?.next}
            onClick={() => log.value?.next && setCursors([...cursors, log.value.next])}
          >
            Older
          </button>
        </nav>
      </section>
      <EntryDetail api={api} id={id} onChanged={changed} />
    </>
  );
}

/** The entry named by ?entry= in the address: payload, ticker, answer; pin, unpin, replay. */
function EntryDetail({ api, id, onChanged }: { api: Api; id: string; onChanged: () => void }) {
  const [entryId, setEntryId] = useState(() => new URLSearchParams(location.search).get('entry'));
  useEffect(() => {
    const update = () => setEntryId(new URLSearchParams(location.search).get('entry'));
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  const entry = useLoad(async () => (entryId ? api.webhookEntry(id, entryId) : undefined), [api, id, entryId]);
  const [outcome, setOutcome] = useState<string | undefined>();
  const [failure, setFailure] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  if (!entryId) return null;
  const act = async (what: () => Promise<string>) => {
    setBusy(true);
    setFailure(undefined);
    setOutcome(undefined);
    try {
      setOutcome(await what());
      await entry.reload();
      onChanged();
    } catch (error) {
      setFailure(describeError(error));
    } finally {
      setBusy(false);
    }
  };
  const value = entry.value;
  return (
    <section aria-labelledby="entry">
      <h2 id="entry">Entry {entryId.slice(0, 8)}</h2>
      <ErrorLine error={entry.error} />
      {value && (
        <>
          <dl class="fields">
            <dt>At</dt>
            <dd>{when(value.at)}</dd>
            <dt>Status</dt>
            <dd>{value.status}</dd>
            <dt>Origin</dt>
            <dd>{value.origin ?? 'call of the URL'}</dd>
            <dt>Pinned</dt>
            <dd>{value.pinned ? 'yes' : 'no'}</dd>
          </dl>
          <div class="actions">
            <button
              type="button"
              class="secondary"
              disabled={busy}
              onClick={() =>
                void act(async () => {
                  await api.pin(id, value.id, !value.pinned);
                  return value.pinned ? 'Unpinned.' : 'Pinned.';
                })
              }
            >
              {value.pinned ? 'Unpin' : 'Pin'}
            </button>
            <button
              type="button"
              disabled={busy || !value.pinned}
              onClick={() =>
                void act(async () => {
                  const replay = await api.replay(id, value.id);
                  return `Replayed as entry ${replay.entryId.slice(0, 8)}: HTTP ${replay.response.status}`;
                })
              }
            >
              Replay
            </button>
          </div>
          <p role="status">{outcome}</p>
          <ErrorLine error={failure} />
          <h3>Payload</h3>
          <pre class="payload">{value.payload ? JSON.stringify(value.payload, null, 2) : 'Not kept (the webhook has logPayload off).'}</pre>
          <h3>Ticker</h3>
          <Ticker lines={value.ticker.map(tickerLine)} label="Ticker of the entry" live={false} />
          <h3>Answer</h3>
          <pre class="answer">{value.response ? JSON.stringify(value.response.body ?? null, null, 2) : '—'}</pre>
        </>
      )}
    </section>
  );
}

const tickerLine = (message: TickerMessage) => `${message.kind}: ${message.message}`;

function runLine(event: string, item: QueueItem): string {
  const s = item.Statistics;
  return `${event}: run ${item.ID.slice(0, 8)} ${item.Status} — read ${s.Read}, created ${s.Created}, updated ${s.Updated}, failed ${s.Failed}`;
}

function Ticker({ lines, label, live }: { lines: string[]; label: string; live: boolean }) {
  const list = (
    <ol class="ticker" aria-label={live ? undefined : label}>
      {lines.map((line, index) => (
        <li key={index}>{line}</li>
      ))}
    </ol>
  );
  // A live region: screen readers read each new line as it arrives.
  return live ? (
    <div role="log" aria-label={label}>
      {list}
    </div>
  ) : (
    list
  );
}

/** What can take the focus inside an element, in order. */
const focusable = 'a[href], button:not(:disabled), input:not(:disabled), select:not(:disabled), textarea:not(:disabled)';

/**
 * Tab from the dialog's last control goes to its first, Shift+Tab from the first to the last: a
 * modal dialog keeps the page behind it inert, but the browser would let Tab leave the page.
 */
function keepFocusInside(event: KeyboardEvent): void {
  if (event.key !== 'Tab') return;
  const controls = [...(event.currentTarget as HTMLElement).querySelectorAll<HTMLElement>(focusable)];
  const first = controls[0];
  const last = controls.at(-1);
  if (!first || !last) return;
  if (event.shiftKey && document.activeElement === first) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first.focus();
  }
}

/**
 * The seed's test function, in a modal dialog: send typed JSON or a pinned entry, watch the call
 * and the run it queued. Opening moves focus into the dialog (its first field), the page behind it
 * is inert while it is open, and Escape or Close shuts it and gives focus back to the button that
 * opened it; Tab and Shift+Tab go round its controls. Closing stops following the stream; the call
 * and its run go on.
 */
function TestDialog({ api, id, pinned, onDone }: { api: Api; id: string; pinned: string[]; onDone: () => void }) {
  const [source, setSource] = useState('');
  const [json, setJson] = useState('{\n  "id": 42,\n  "event": "customer.updated"\n}');
  const [sent, setSent] = useState<unknown>();
  const [response, setResponse] = useState<WebhookResponse | undefined>();
  const [lines, setLines] = useState<string[]>([]);
  const [running, setRunning] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const abort = useRef<AbortController | undefined>(undefined);
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLSelectElement>(null);
  useEffect(() => () => abort.current?.abort(), []);

  const open = () => {
    dialog.current?.showModal();
    first.current?.focus();
  };
  const onClosed = () => {
    abort.current?.abort();
    opener.current?.focus();
  };

  const send = async () => {
    let body: { data: unknown } | { pin: string };
    if (source) body = { pin: source };
    else {
      try {
        body = { data: JSON.parse(json) as unknown };
      } catch (error) {
        setFailure(`The data is not JSON: ${(error as Error).message}`);
        return;
      }
    }
    const controller = new AbortController();
    abort.current = controller;
    setFailure(undefined);
    setSent(undefined);
    setResponse(undefined);
    setLines([]);
    setRunning(true);
    const add = (line: string) => setLines((before) => [...before, line]);
    const onEvent = ({ event, data }: StreamEvent) => {
      if (event === 'sent') setSent(data);
      else if (event === 'ticker') add(tickerLine(data as TickerMessage));
      else if (event === 'response') {
        const answer = data as WebhookResponse & { queueItemId?: string };
        setResponse(answer);
        add(`response: HTTP ${answer.status}${answer.queueItemId ? `, queued run ${answer.queueItemId.slice(0, 8)}` : ''}`);
      } else if (event === 'run.item' || event === 'run.progress' || event === 'run.done') add(runLine(event, data as QueueItem));
      else add(`${event}: ${(data as { message?: string }).message ?? JSON.stringify(data)}`);
    };
    try {
      await api.testWebhook(id, body, onEvent, controller.signal);
      add('stream: ended');
    } catch (error) {
      if (controller.signal.aborted) add('stream: stopped');
      else setFailure(describeError(error));
    } finally {
      setRunning(false);
      onDone();
    }
  };

  return (
    <section aria-labelledby="test">
      <h2 id="test">Test the webhook</h2>
      <p class="help">Sends to the real webhook: its action runs for real (not a simulation) and the call is logged.</p>
      <button type="button" ref={opener} onClick={open}>
        Open the test dialog
      </button>
      <dialog ref={dialog} class="test-dialog" aria-labelledby="test-title" onClose={onClosed} onKeyDown={keepFocusInside}>
        <div class="title">
          <h2 id="test-title">Test webhook {id}</h2>
          <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
            Close
          </button>
        </div>
        <form
          class="start"
          aria-label="Test the webhook"
          onSubmit={(event) => {
            event.preventDefault();
            void send();
          }}
        >
          <label>
            Send
            <select ref={first} value={source} onChange={(event) => setSource(event.currentTarget.value)}>
              <option value="">typed JSON</option>
              {pinned.map((entry) => (
                <option key={entry} value={entry}>
                  pinned entry {entry.slice(0, 8)}
                </option>
              ))}
            </select>
          </label>
          {!source && (
            <label>
              JSON data
              <textarea
                rows={5}
                value={json}
                aria-describedby="json-help"
                onInput={(event) => setJson(event.currentTarget.value)}
                onKeyDown={(event) => {
                  // Enter writes a new line in the JSON; Ctrl+Enter (⌘+Enter) sends it.
                  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !running) {
                    event.preventDefault();
                    void send();
                  }
                }}
              />
            </label>
          )}
          {!source && (
            <p id="json-help" class="help">
              Enter writes a new line; Ctrl+Enter sends.
            </p>
          )}
          <div class="actions">
            <button type="submit" disabled={running}>
              Send test
            </button>
            <button type="button" class="secondary" disabled={!running} onClick={() => abort.current?.abort()}>
              Stop
            </button>
          </div>
        </form>
        <ErrorLine error={failure} />
        <h3>Sent</h3>
        <pre class="sent">{sent === undefined ? '—' : JSON.stringify(sent, null, 2)}</pre>
        <h3>Response</h3>
        <p role="status" class="response-status">
          {response ? `HTTP ${response.status}` : running ? 'Waiting…' : '—'}
        </p>
        <pre class="response-body">{response?.body ?? ''}</pre>
        <h3>Ticker</h3>
        <Ticker lines={lines} label="Ticker" live={true} />
      </dialog>
    </section>
  );
}
