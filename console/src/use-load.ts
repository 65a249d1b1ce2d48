/** Loads a value for a page and says whether it is loading or what failed; `reload` asks again. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describeError } from './api/client.js';

export interface Loaded<T> {
  value: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => Promise<void>;
}

export function useLoad<T>(load: () => Promise<T>, keys: unknown[]): Loaded<T> {
  const [value, setValue] = useState<T | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(true);
  // The caller names what the load depends on (keys), as with useEffect.
  const reload = useCallback(async () => {
    setLoading(true);
    try {
      setValue(await load());
      setError(undefined);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setLoading(false);
    }
  }, keys);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { value, error, loading, reload };
}

/** A time as the operator reads it: local, to the second; the ISO value stays in the title. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/**
 * The ISO 8601 time (UTC) of a `datetime-local` input's value, which is the operator's local time;
 * undefined for an empty input. `label` names the input when the value is no time.
 */
export function isoOfLocal(value: string, label: string): string | undefined {
  if (value === '') return undefined;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw new Error(`${label}: ${value} is no date and time.`);
  return time.toISOString();
}
