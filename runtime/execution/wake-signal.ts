/**
 * A sleep that a wake-up ends early. A wake-up that arrives while nobody sleeps is kept, so the
 * next sleep returns at once: work announced while the daemon was busy claiming is not missed.
 */
export class WakeSignal {
  #pending = false;
  #wake: (() => void) | undefined;

  /** Ends the current sleep, or the next one if none is under way. */
  wake(): void {
    if (this.#wake !== undefined) this.#wake();
    else this.#pending = true;
  }

  /** Waits `ms`, or less if woken; answers true when woken. */
  sleep(ms: number): Promise<boolean> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), Math.max(0, ms));
      const done = (woken: boolean): void => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve(woken);
      };
      this.#wake = () => done(true);
    });
  }
}
