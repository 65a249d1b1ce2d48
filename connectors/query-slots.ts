/**
 * Turns for the free queries of one system: at most `size` run at once; one more waits, first come
 * first served, up to `waitMs` for a turn, then fails with `busy()` — so a burst of heavy queries
 * queues briefly instead of piling onto the database, and a caller that cannot get a turn learns
 * when to come back instead of hanging.
 *
 * A turn ends at the latest when its query's statement timeout stops it (`holdMs`): the earliest
 * such end among the running queries is the Retry-After the busy error carries.
 */
export interface QuerySlotsOptions {
  size: number;
  waitMs: number;
  /** Longest a turn is held (the statement timeout). */
  holdMs: number;
  /** The error for a caller that found no turn: how many run, and when one is sure to end (seconds). */
  busy(running: number, retryAfterSeconds: number): Error;
}

interface Waiter {
  grant(): void;
}

export class QuerySlots {
  /** When each running turn must end by (ms since the epoch). */
  private readonly running = new Set<{ endsBy: number }>();
  private readonly waiters: Waiter[] = [];

  constructor(private readonly options: QuerySlotsOptions) {}

  /** Waits for a turn; resolves with the function that ends it (call it exactly once). */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.running.size < this.options.size) return this.start();
    // A freed turn is handed straight to the longest waiter (start() runs in its grant), so no
    // newcomer can take it in between.
    return this.wait(signal);
  }

  private start(): () => void {
    const turn = { endsBy: Date.now() + this.options.holdMs };
    this.running.add(turn);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.running.delete(turn);
      this.waiters.shift()?.grant();
    };
  }

  private wait(signal: AbortSignal | undefined): Promise<() => void> {
    return new Promise<() => void>((resolve, reject) => {
      const leave = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
      };
      const waiter: Waiter = {
        grant: () => {
          leave();
          resolve(this.start());
        },
      };
      const onAbort = (): void => {
        leave();
        reject(signal!.reason);
      };
      const timer = setTimeout(() => {
        leave();
        const soonest = Math.min(...[...this.running].map((turn) => turn.endsBy));
        reject(this.options.busy(this.running.size, Math.max(1, Math.ceil((soonest - Date.now()) / 1000))));
      }, this.options.waitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }
}
