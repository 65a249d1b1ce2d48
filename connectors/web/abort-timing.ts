/**
 * Time and cancellation around one request: a deadline joined with the caller's AbortSignal, and
 * waits that end early when the caller goes away. A caller's abort always rejects with the
 * caller's own reason, as the SQL connector's reads do (`signal.throwIfAborted()`), so whoever
 * aborted recognises their reason.
 *
 * The deadline is a timer of our own, cleared when the request ends, rather than
 * `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: a long-lived caller signal (a whole sync)
 * would otherwise keep a link to every request's signal, and each request would leave a timer
 * running for the full timeout after it finished.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** A signal that aborts at the deadline or when the caller's signal does; `end()` lets go of both. */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onCallerAbort: (() => void) | undefined;
  /** True once the deadline, not the caller, aborted the signal. */
  timedOut = false;

  constructor(
    ms: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error('the request took longer than its deadline'));
    }, ms);
    if (caller !== undefined) {
      this.onCallerAbort = () => this.controller.abort(caller.reason);
      if (caller.aborted) this.onCallerAbort();
      else caller.addEventListener('abort', this.onCallerAbort, { once: true });
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * What an error thrown while the signal was in use means: the caller's reason when the caller
   * aborted, `onTimeout()` when the deadline passed, else the error itself.
   */
  explain(error: unknown, onTimeout: () => Error): unknown {
    if (this.caller?.aborted) return this.caller.reason;
    if (this.timedOut) return onTimeout();
    return error;
  }

  end(): void {
    clearTimeout(this.timer);
    if (this.onCallerAbort !== undefined) this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

/** Waits `ms`; rejects with the signal's reason as soon as it aborts. */
export async function wait(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  try {
    await sleep(ms, undefined, signal ? { signal } : undefined);
  } catch (error) {
    // timers/promises rejects with its own AbortError; the caller's reason is what it expects.
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

/** `promise`, or the signal's reason as soon as it aborts; the promise itself goes on. */
export function abandonOnAbort<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
