/**
 * One queue item (GetAction): its fields, statistics, errors with their source ids, and its
 * timeline (created, each error as it came, the last attempt's start, the end); Retry when it
 * Failed, Cancel while it is Pending. While it is Pending or InProgress the page follows the item's
 * event stream (GET /api/queue/{id}/events), so a started run is watched to its end as it goes;
 * where the stream cannot be had (the server's streams are all taken) it asks again every second.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { type Api, describeError } from '../api/client.js';
import type { QueueItem } from '../api/types.js';
import { navigate } from '../route.js';
import { useLoad, when } from '../use-load.js';
import { ErrorLine } from '../page-parts.js';

/** One moment of an item's life, for the timeline. */
interface Moment {
  at: string;
  what: string;
}

/**
 * The item's moments in time order: created, every error (with its source id), the start of the
 * last attempt, the end. Earlier attempts show through their errors: GetAction keeps the errors of
 * every attempt but the start of the last one only.
 */
function timelineOf(item: QueueItem): Moment[] {
  const moments: Moment[] = [{ at: item.CreatedDate, what: `Created (${item.StartType})` }];
  if (item.StartedDate) moments.push({ at: item.StartedDate, what: item.Attempts > 1 ? `Attempt ${item.Attempts} started` : 'Started' });
  for (const error of item.Errors)
    moments.push({ at: error.At, what: `Error${error.SourceId === undefined ? '' : ` (source id ${error.SourceId})`}: ${error.Message}` });
  if (item.FinishedDate) moments.push({ at: item.FinishedDate, what: `Finished ${item.Status}` });
  // Stable: moments of the same instant keep the order above (a start before its errors, errors before the end).
  return moments
    .map((moment, index) => ({ moment, index }))
    .sort((a, b) => Date.parse(a.moment.at) - Date.parse(b.moment.at) || a.index - b.index)
    .map(({ moment }) => moment);
}

export function QueueItemPage({ api, id }: { api: Api; id: string }) {
  const { value: loaded, error, reload: load } = useLoad(() => api.item(id), [api, id]);
  // The latest state the stream told of; a load (after Cancel) starts from the answer again.
  const [streamed, setStreamed] = useState<QueueItem | undefined>();
  const [polling, setPolling] = useState(false);
  const item = streamed?.ID === id ? streamed : loaded;
  const reload = useCallback(async () => {
    setStreamed(undefined);
    await load();
  }, [load]);
  const [actionError, setActionError] = useState<string | undefined>();
  const running = item?.Status === 'Pending' || item?.Status === 'InProgress';

  useEffect(() => {
    if (!running || polling) return;
    const following = new AbortController();
    api
      .itemEvents(
        id,
        ({ event, data }) => {
          if (event === 'item' || event === 'progress' || event === 'done') setStreamed(data as QueueItem);
        },
        following.signal,
      )
      .catch(() => {
        if (!following.signal.aborted) setPolling(true);
      });
    return () => following.abort();
  }, [api, id, running, polling]);

  useEffect(() => {
    if (!running || !polling) return;
    const timer = setInterval(() => void reload(), 1000);
    return () => clearInterval(timer);
  }, [running, polling, reload]);

  const act = async (action: () => Promise<unknown>) => {
    setActionError(undefined);
    try {
      await action();
    } catch (failure) {
      setActionError(describeError(failure));
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>Queue item {id}</h1>
      <p>
        <a href="/console/queue">Back to the queue</a>
      </p>
      <ErrorLine error={error} />
      {item && (
        <>
          <dl class="fields">
            <dt>Status</dt>
            <dd>
              <span class={`status ${item.Status}`} role="status">
                {item.Status}
              </span>
            </dd>
            <dt>Sync or flow</dt>
            <dd>{item.ProcessId}</dd>
            <dt>Start type</dt>
            <dd>{item.StartType}</dd>
            <dt>Source id</dt>
            <dd>{item.SourceId ?? 'the whole source'}</dd>
            <dt>WhereClause</dt>
            <dd>{item.WhereClause ?? 'none'}</dd>
            <dt>Created</dt>
            <dd>{when(item.CreatedDate)}</dd>
            <dt>Started</dt>
            <dd>{when(item.StartedDate)}</dd>
            <dt>Finished</dt>
            <dd>{when(item.FinishedDate)}</dd>
            <dt>Attempts</dt>
            <dd>{item.Attempts}</dd>
            {item.RetryOf && (
              <>
                <dt>Retry of</dt>
                <dd>
                  <a href={`/console/queue/${item.RetryOf}`}>{item.RetryOf}</a>
                </dd>
              </>
            )}
          </dl>
          <div class="actions">
            {item.Status === 'Failed' && (
              <button type="button" onClick={() => void act(async () => navigate(`/console/queue/${(await api.retry(item.ID)).ID}`))}>
                Retry
              </button>
            )}
            {item.Status === 'Pending' && (
              <button
                type="button"
                class="danger"
                onClick={() =>
                  void act(async () => {
                    await api.cancel(item.ID);
                    await reload();
                  })
                }
              >
                Cancel
              </button>
            )}
          </div>
          <ErrorLine error={actionError} />
          <table>
            <caption>Statistics of the last attempt</caption>
            <thead>
              <tr>
                <th scope="col" class="number">
                  Read
                </th>
                <th scope="col" class="number">
                  Created
                </th>
                <th scope="col" class="number">
                  Updated
                </th>
                <th scope="col" class="number">
                  Skipped
                </th>
                <th scope="col" class="number">
                  Failed
                </th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td class="number">{item.Statistics.Read}</td>
                <td class="number">{item.Statistics.Created}</td>
                <td class="number">{item.Statistics.Updated}</td>
                <td class="number">{item.Statistics.Skipped}</td>
                <td class="number">{item.Statistics.Failed}</td>
              </tr>
            </tbody>
          </table>
          <h2 id="timeline">Timeline</h2>
          <ol class="timeline" aria-labelledby="timeline">
            {timelineOf(item).map((moment, index) => (
              <li key={index}>
                <time dateTime={moment.at}>{when(moment.at)}</time> {moment.what}
              </li>
            ))}
          </ol>
          <h2>Errors</h2>
          {item.Errors.length === 0 ? (
            <p>No errors.</p>
          ) : (
            <table>
              <caption>Errors of every attempt, oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">At</th>
                  <th scope="col">Source id</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                {item.Errors.map((entry, index) => (
                  <tr key={`${entry.At}-${index}`}>
                    <td>{when(entry.At)}</td>
                    <td>{entry.SourceId ?? '—'}</td>
                    <td>{entry.Message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </>
  );
}
