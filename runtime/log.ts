/** The process logger: JSON lines on standard output (pino), level from SYNCLINE_LOG_LEVEL. */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level = process.env.SYNCLINE_LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { service: 'syncline' } });
}
