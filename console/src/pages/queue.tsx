/**
 * Queue: the items newest first, filtered by sync, status and start type and paged with the API's
 * cursor; and the start form (AddAction), which opens the new item so its run can be watched.
 */
import { useState } from 'preact/hooks';
import type { Api, QueueFilter } from '../api/client.js';
import type { QueueStatus, StartType } from '../api/types.js';
import { navigate } from '../route.js';
import { useLoad, when } from '../use-load.js';
import { StartForm, startTypes } from './start-form.js';
import { ErrorLine, PageTitle } from '../page-parts.js';

const statuses: QueueStatus[] = ['Pending', 'InProgress', 'Complete', 'Failed'];

export function QueuePage({ api }: { api: Api }) {
  const [draft, setDraft] = useState<QueueFilter>({ sync: '', status: '', startType: '' });
  const [filter, setFilter] = useState<QueueFilter>({});
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
          setCursors([]);
          setFilter({ ...draft });
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
        <button type="submit">Apply filters</button>
      </form>
      <ErrorLine error={error} />
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
              <th scope="col">Read</th>
              <th scope="col">Created records</th>
              <th scope="col">Updated</th>
              <th scope="col">Failed records</th>
              <th scope="col">Errors</th>
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
