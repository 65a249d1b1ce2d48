/**
 * The process logger: JSON lines (pino), level from SYNCLINE_LOG_LEVEL. Long-running commands log
 * to standard output; `syncline run` logs to standard error, keeping its output for the table.
 *
 * Standard output is written asynchronously and in batches: lines gather in a buffer that goes out
 * once it holds 8 KiB, and at most 100 ms after its first line — a busy daemon logs two lines per
 * item, and a write per line (each a hop to a thread and a wake-up of the reader) cost the daemon
 * a sixth of its throughput. pino flushes what is left, synchronously, when the process exits
 * (after an uncaught exception too) and after a fatal line; a process killed outright (SIGKILL,
 * out of memory) loses at most the last 100 ms of lines. Standard error, shared with `syncline
 * run`'s progress on a terminal, stays synchronous so the two never interleave out of order.
 */
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Bytes of log lines gathered before a write, and the longest a line waits for one. */
const batchBytes = 8192;
const batchDelayMs = 100;

function batchedStdout(): DestinationStream & { flushSync(): void } {
  const destination = pino.destination({ dest: 1, sync: false, minLength: batchBytes });
  /** Whether a flush is due already, for the lines gathered since the last one. */
  let flushDue = false;
  return {
    write(line: string) {
      destination.write(line);
      if (flushDue) return;
      flushDue = true;
      setTimeout(() => {
        flushDue = false;
        destination.flush();
      }, batchDelayMs).unref();
    },
    // For pino's fatal lines; the exit handler is the destination's own.
    flushSync: () => destination.flushSync(),
  };
}

export function createLogger(level = process.env.SYNCLINE_LOG_LEVEL ?? 'info', stream: 'stdout' | 'stderr' = 'stdout'): Logger {
  return pino({ level, base: { service: 'syncline' } }, stream === 'stdout' ? batchedStdout() : pino.destination(2));
}
