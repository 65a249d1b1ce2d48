/** The start form: AddAction with a sync, start type, optional source id, WhereClause and ActionParams. */
import { useState } from 'preact/hooks';
import { type Api, describeError } from '../api/client.js';
import type { AddActionBody, QueueItem, StartType } from '../api/types.js';
import { ErrorLine } from '../page-parts.js';

export const startTypes: StartType[] = ['manual', 'AdHoc', 'repeat', 'planned', 'Single'];

/**
 * ActionParams as typed: a JSON object of names to values (the easy form) or the API's own list of
 * {Name, Value}. Values become strings, as the API takes them.
 */
export function parseActionParams(text: string): AddActionBody['ActionParams'] {
  if (text.trim() === '') return undefined;
  const parsed: unknown = JSON.parse(text);
  if (Array.isArray(parsed)) return parsed as Array<{ Name: string; Value: string }>;
  if (parsed && typeof parsed === 'object') {
    return Object.entries(parsed).map(([Name, Value]) => ({ Name, Value: typeof Value === 'string' ? Value : JSON.stringify(Value) }));
  }
  throw new Error('ActionParams must be a JSON object of names and values, or a list of {"Name", "Value"}.');
}

export function StartForm({ api, onStarted }: { api: Api; onStarted: (item: QueueItem) => void }) {
  const [sync, setSync] = useState('');
  const [startType, setStartType] = useState<StartType>('manual');
  const [sourceId, setSourceId] = useState('');
  const [where, setWhere] = useState('');
  const [params, setParams] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const actionParams = parseActionParams(params);
      const item = await api.addAction({
        ProcessId: sync.trim(),
        StartType: startType,
        ...(sourceId.trim() ? { SourceId: sourceId.trim() } : {}),
        ...(where.trim() ? { WhereClause: where } : {}),
        ...(actionParams ? { ActionParams: actionParams } : {}),
      });
      onStarted(item);
    } catch (failure) {
      setError(failure instanceof SyntaxError ? `ActionParams is not JSON: ${failure.message}` : describeError(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="start">
      <h2 id="start">Start a sync</h2>
      <form class="start" aria-labelledby="start" onSubmit={submit}>
        <label>
          Sync or flow
          <input type="text" required value={sync} onInput={(event) => setSync(event.currentTarget.value)} />
        </label>
        <label>
          Start type
          <select value={startType} onChange={(event) => setStartType(event.currentTarget.value as StartType)}>
            {startTypes.map((type) => (
              <option key={type}>{type}</option>
            ))}
          </select>
        </label>
        <label>
          Source id (optional: one record)
          <input type="text" value={sourceId} onInput={(event) => setSourceId(event.currentTarget.value)} />
        </label>
        <label>
          WhereClause (optional)
          <input type="text" value={where} onInput={(event) => setWhere(event.currentTarget.value)} placeholder="id > 2" />
        </label>
        <label>
          ActionParams (optional JSON)
          <textarea rows={3} value={params} onInput={(event) => setParams(event.currentTarget.value)} placeholder='{"id": "2"}' />
        </label>
        <button type="submit" disabled={busy}>
          Start
        </button>
        <ErrorLine error={error} />
      </form>
    </section>
  );
}
