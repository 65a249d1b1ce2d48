/**
 * An object-mode stream (csv-parse's records) read in batches: every record the stream holds is
 * taken at once with `read()`, and the reader waits only when it is empty. Iterating the stream
 * itself would cost a promise per record — most of the time of a million-row read — while a batch
 * costs one. The stream keeps its own back-pressure: it parses ahead only up to its high-water
 * mark, so memory stays a batch and a buffer.
 *
 * Leaving the loop early (a limit reached, a signal, an error downstream) destroys the stream,
 * which closes its file.
 */
import type { Readable } from 'node:stream';

export async function* streamBatches<T>(stream: Readable, size: number): AsyncGenerator<T[]> {
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const rouse = (): void => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const onEnd = (): void => {
    ended = true;
    rouse();
  };
  const onError = (error: unknown): void => {
    failure ??= error;
    rouse();
  };
  stream.on('readable', rouse);
  stream.on('end', onEnd);
  stream.on('error', onError);
  try {
    for (;;) {
      if (failure !== undefined) throw failure;
      const batch: T[] = [];
      let item: T | null;
      while (batch.length < size && (item = stream.read() as T | null) !== null) batch.push(item);
      if (failure !== undefined) throw failure;
      if (batch.length > 0) yield batch;
      if (batch.length === size) continue;
      if (ended) return;
      // Nothing buffered: wait for more, the end or an error. `read()` returning null arms the
      // next 'readable'; the flags are checked again first, in case it already came.
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (ended || failure !== undefined || stream.readableLength > 0) rouse();
      });
    }
  } finally {
    stream.off('readable', rouse);
    stream.off('end', onEnd);
    stream.off('error', onError);
    if (!ended) stream.destroy();
    // A late error of a destroyed stream must not be unhandled.
    stream.on('error', () => undefined);
  }
}
