/**
 * The process logger: JSON lines (pino), level from SYNCLINE_LOG_LEVEL. Long-running commands log
 * to standard output; `syncline run` logs to standard error, keeping its output for the table.
 *
 * Standard output is written asynchronously: a line goes out at once when no write is under way,
 * and lines logged meanwhile go together in the next write — a busy daemon logs two lines per
 * item, and one blocking write each cost more than some runs. pino flushes what is left when the
 * process exits and after a fatal line. Standard error, shared with `syncline run`'s progress on a
 * terminal, stays synchronous so the two never interleave out of order.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level = process.env.SYNCLINE_LOG_LEVEL ?? 'info', stream: 'stdout' | 'stderr' = 'stdout'): Logger {
  const destination = stream === 'stdout' ? pino.destination({ dest: 1, sync: false }) : pino.destination(2);
  return pino({ level, base: { service: 'syncline' } }, destination);
}
