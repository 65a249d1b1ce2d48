/**
 * Queue: the items newest first, filtered by sync, status, start type and a time range on when
 * they were created or finished, and paged with the API's cursor; and the start form (AddAction),
 * which opens the new item so its run can be watched.
 */
import { useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import type { QueueFilter, QueueStatus, StartType } from '../api/types.js';
import { navigate } from '../route.js';
import { isoOfLocal, useLoad, when } from '../use-load.js';
import { StartForm, startTypes } from './start-form.js';
import { ErrorLine, PageTitle } from '../page-parts.js';

const statuses: QueueStatus[] = ['Pending', 'InProgress', 'Complete', 'Failed'];

/** The filter form as typed: times as the browser's local date and time inputs hold them. */
interface Draft {
  sync: string;
  status: QueueStatus | '';
  startType: StartType | '';
  timeOf: 'created' | 'finished';
  from: string;
  to: string;
}

const emptyDraft: Draft = { sync: '', status: '', startType: '', timeOf: 'created', from: '', to: '' };

/** The API's filter for a draft; a time it cannot read throws, said where the draft is applied. */
function filterOf(draft: Draft): QueueFilter {
  const from = isoOfLocal(draft.from, 'From');
  const to = isoOfLocal(draft.to, 'To');
  const range = draft.timeOf === 'created' ? { createdFrom: from, createdTo: to } : { finishedFrom: from, finishedTo: to };
  return {
    ...(draft.sync ? { sync: draft.sync } : {}),
    ...(draft.status ? { status: [draft.status] } : {}),
    ...(draft.startType ? { startType: draft.startType } : {}),
    ...Object.fromEntries(Object.entries(range).filter(([, value]) => value !== undefined)),
  };
}

export function QueuePage({ api }: { api: Api }) {
  const [draft, setDraft] = useState<Draft>(emptyDraft);
  const [filter, setFilter] = useState<QueueFilter>({});
  const [draftError, setDraftError] = useState<string | undefined>();
  // The cursors of the pages before the current one, so "Newer" can go back without the API paging backwards.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const {
    value: page,
    error,
    loading,
    reload,
  } = useLoad(() => api.queue({ ...filter, ...(cursor ? { cursor } : {}), limit: 20 }), [api, filter, cursor]);

  return (
    <>
      <PageTitle title="Queue" loading={loading} onRefresh={() => void reload()} />
      <form
        class="filters"
        aria-label="Filter the queue"
        onSubmit={(event) => {
          event.preventDefault();
          try {
            const next = filterOf(draft);
            setDraftError(undefined);
            setCursors([]);
            setFilter(next);
          } catch (failure) {
            setDraftError((failure as Error).message);
          }
        }}
      >
        <label>
          Sync
          <input type="text" value={draft.sync} onInput={(event) => setDraft({ ...draft, sync: event.currentTarget.value.trim() })} />
        </label>
        <label>
          Status
          <select value={draft.status} onChange={(event) => setDraft({ ...draft, status: event.currentTarget.value as QueueStatus })}>
            <option value="">any</option>
            {statuses.map((status) => (
              <option key={status}>{status}</option>
            ))}
          </select>
        </label>
        <label>
          Start type
          <select value={draft.startType} onChange={(event) => setDraft({ ...draft, startType: event.currentTarget.value as StartType })}>
            <option value="">any</option>
            {startTypes.map((type) => (
              <option key={type}>{type}</option>
            ))}
          </select>
        </label>
        <label>
          Time of
          <select value={draft.timeOf} onChange={(event) => setDraft({ ...draft, timeOf: event.currentTarget.value as Draft['timeOf'] })}>
            <option value="created">creation</option>
            <option value="finished">finish</option>
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
        <button type="submit">Apply filters</button>
      </form>
      <ErrorLine error={draftError ?? error} />
      {page && page.items.length === 0 && <p>No queue items match.</p>}
      {page && page.items.length > 0 && (
        <table>
          <caption>Queue items, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Sync or flow</th>
              <th scope="col">Status</th>
              <th scope="col">Start type</th>
              <th scope="col">Created</th>
              <th scope="col">Finished</th>
              <th scope="col" class="number">
                Read
              </th>
              <th scope="col" class="number">
                Created records
              </th>
              <th scope="col" class="number">
                Updated
              </th>
              <th scope="col" class="number">
                Failed records
              </th>
              <th scope="col" class="number">
                Errors
              </th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((item) => (
              <tr key={item.ID}>
                <th scope="row">
                  <a href={`/console/queue/${item.ID}`}>{item.ID.slice(0, 8)}</a>
                </th>
                <td>{item.ProcessId}</td>
                <td>
                  <span class={`status ${item.Status}`}>{item.Status}</span>
                </td>
                <td>{item.StartType}</td>
                <td>{when(item.CreatedDate)}</td>
                <td>{when(item.FinishedDate)}</td>
                <td class="number">{item.Statistics.Read}</td>
                <td class="number">{item.Statistics.Created}</td>
                <td class="number">{item.Statistics.Updated}</td>
                <td class="number">{item.Statistics.Failed}</td>
                <td class="number">{item.ErrorCount}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav class="pager" aria-label="Queue pages">
        <button type="button" class="secondary" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button type="button" class="secondary" disabled={!page?.next} onClick={() => page?.next && setCursors([...cursors, page.next])}>
          Older
        </button>
      </nav>
      <StartForm api={api} onStarted={(item) => navigate(`/console/queue/${item.ID}`)} />
    </>
  );
}
