/**
 * Reads the next page while the current one is mapped and written, so a source query and target
 * writes overlap instead of taking turns. At most one page waits ahead: memory stays two pages.
 */
export async function* prefetchPages<T>(pages: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = pages[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | undefined = iterator.next();
  try {
    for (;;) {
      const result: IteratorResult<T> = await pending!;
      pending = undefined;
      if (result.done) return;
      pending = iterator.next();
      // Its failure is reported when the loop reaches it; until then it must not count as unhandled.
      pending.catch(() => undefined);
      yield result.value;
    }
  } finally {
    if (pending !== undefined) {
      // A generator queues return() behind a running next(): let the read end, then close the source.
      await pending.catch(() => undefined);
      await iterator.return?.();
    }
  }
}
