/**
 * A task run again and again, `intervalMs` after the previous run ended — never two at once —
 * until stopped; stopping waits for a run in progress, so nothing writes after the stop. Used for
 * heartbeats, the reaper and the pruner. The task handles its own errors (a rejection is ignored
 * here and the next run comes as planned).
 */
export interface Repeating {
  stop(): Promise<void>;
}

export function repeatEvery(intervalMs: number, task: () => Promise<void>, options: { immediately?: boolean } = {}): Repeating {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
  let stopped = false;
  const run = (): void => {
    current = task()
      .catch(() => {})
      .finally(() => {
        current = undefined;
        if (!stopped) timer = setTimeout(run, intervalMs);
      });
  };
  if (options.immediately) run();
  else timer = setTimeout(run, intervalMs);
  return {
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await current;
    },
  };
}
