/**
 * What a run has done so far: statistics and per-record errors, capped at the sync's maxErrors
 * (further ones only counted, then named by one closing error), and the `RunStop` that ends a run
 * which cannot go on.
 */
import { ConnectorError } from '../../connectors/connector-error.js';
import type { RunOutcome } from '../execution/process-run.js';
import type { NewItemError } from '../queue/complete.js';
import type { ItemStatistics } from '../queue/queue-item.js';

/** Thrown inside a run to end it Failed: the reason is the outcome's first error. */
export class RunStop extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'RunStop';
  }
}

/** The message of an abort reason: an Error's message, or the reason itself as text. */
export function abortMessage(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return reason === undefined ? 'the run was stopped' : String(reason);
}

/**
 * Connector errors that concern one record (its values, a constraint it breaks): that record fails
 * and the run goes on. Anything else from a write (unavailable, a table that is gone) ends the run.
 */
export function isRecordRejection(error: unknown): error is ConnectorError {
  return (
    error instanceof ConnectorError &&
    (error.code === 'rejected' || error.code === 'invalid-value' || error.code === 'unknown-field' || error.code === 'read-only')
  );
}

/**
 * The RunStop for an error that ended the run while `doing` (e.g. "reading crm/Customer"). A
 * system that cannot be reached, a table that is gone or an unknown failure may be gone on the
 * next try; a filter the connector cannot run or a value that does not fit never will.
 */
export function stopFor(error: unknown, doing: string, signal: AbortSignal | undefined): RunStop {
  if (error instanceof RunStop) return error;
  if (signal?.aborted) return new RunStop(abortMessage(signal), true, { cause: error });
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ConnectorError) {
    // busy: every free-query turn of the system was taken for a moment; a later try gets one.
    // timeout: a statement stopped at the system's statementTimeout, as a run stopped at the sync's
    // own timeout, may pass when the system is less loaded; retries.max bounds the tries.
    const retryable =
      error.code === 'unavailable' || error.code === 'definition-mismatch' || error.code === 'busy' || error.code === 'timeout';
    return new RunStop(`${doing}: ${message}`, retryable, { cause: error });
  }
  return new RunStop(`${doing}: ${message}`, true, { cause: error });
}

export class RunReport {
  /** `unchanged` is there once a record was found unchanged: statistics of runs that wrote everything stay as they were. */
  readonly statistics: ItemStatistics = { read: 0, created: 0, updated: 0, skipped: 0, failed: 0 };
  private readonly kept: NewItemError[] = [];
  private notKept = 0;

  constructor(private readonly maxErrors: number) {}

  /** Counts a failed record and keeps its error while under maxErrors. */
  recordFailed(sourceId: string | undefined, message: string): void {
    this.statistics.failed += 1;
    this.note(sourceId, message);
  }

  /** Keeps an error that is not a failed record (a source id that found nothing). */
  note(sourceId: string | undefined, message: string): void {
    if (this.kept.length < this.maxErrors) this.kept.push(sourceId === undefined ? { message } : { message, sourceId });
    else this.notKept += 1;
  }

  /** The kept errors, and one more saying how many were only counted. */
  errors(): NewItemError[] {
    if (this.notKept === 0) return [...this.kept];
    return [...this.kept, { message: `${this.notKept} more record error(s) were not kept (maxErrors is ${this.maxErrors})` }];
  }

  complete(): RunOutcome {
    return { status: 'Complete', statistics: { ...this.statistics }, errors: this.errors(), retryable: false };
  }

  failed(stop: RunStop): RunOutcome {
    return {
      status: 'Failed',
      statistics: { ...this.statistics },
      errors: [{ message: stop.message }, ...this.errors()],
      retryable: stop.retryable,
    };
  }
}
