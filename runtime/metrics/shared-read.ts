/**
 * A read of the runtime database that scrapes share: /metrics needs no token and several
 * Prometheus replicas may scrape every process at once, so however often it is asked, the
 * database is read at most once per `freshMs` — callers meanwhile get the answer of the read that
 * is under way or just finished. A read that fails is not kept: the next scrape tries again.
 *
 * Each caller waits at most `timeoutMs`: a scrape must answer (with what it has) before
 * Prometheus gives up on it, even while the database hangs. The read itself goes on and its
 * answer serves the next callers.
 */
export interface SharedRead<T> {
  /** The latest answer, read again when older than `freshMs`; rejects after `timeoutMs`. */
  get(now?: number): Promise<T>;
}

export function sharedRead<T>(read: () => Promise<T>, options: { freshMs: number; timeoutMs: number }): SharedRead<T> {
  let latest: { value: T; at: number } | undefined;
  let reading: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const current = read().then((value) => {
      latest = { value, at: Date.now() };
      return value;
    });
    reading = current;
    const forget = (): void => {
      if (reading === current) reading = undefined;
    };
    current.then(forget, forget);
    return current;
  };
  return {
    async get(now = Date.now()) {
      if (latest !== undefined && now - latest.at < options.freshMs) return latest.value;
      const current = reading ?? start();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the runtime database did not answer within ${options.timeoutMs} ms`)),
          options.timeoutMs,
        );
      });
      try {
        return await Promise.race([current, timeout]);
      } finally {
        clearTimeout(timer);
        // A caller that gave up must not leave the read's rejection unhandled.
        current.catch(() => {});
      }
    },
  };
}
