/**
 * The process logger: JSON lines (pino), level from SYNCLINE_LOG_LEVEL. Long-running commands log
 * to standard output; `syncline run` logs to standard error, keeping its output for the table.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level = process.env.SYNCLINE_LOG_LEVEL ?? 'info', stream: 'stdout' | 'stderr' = 'stdout'): Logger {
  return pino({ level, base: { service: 'syncline' } }, pino.destination(stream === 'stdout' ? 1 : 2));
}
