/**
 * The contract between what runs a process (a sync or a flow) and what holds its queue item: the
 * daemon, the direct HTTP routes and `syncline run` all hand a `ProcessStart` to the sync engine
 * and get a `RunOutcome` back, which they record on the item. Nothing here touches the queue.
 */
import type { ConnectionProvider } from '../../connectors/connection-pool.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import type { Logger } from '../log.js';
import type { NewItemError } from '../queue/complete.js';
import type { ActionParam, ItemStatistics } from '../queue/queue-item.js';

/** What a run needs from the process around it. */
export interface RunEnvironment {
  /** The definitions the run uses from start to end, even if a reload swaps them meanwhile. */
  snapshot: Snapshot;
  connections: ConnectionProvider;
  /** The runtime database (record store). */
  db: RuntimeDatabase;
  log?: Logger;
}

/** One start of a process, as the queue item says. */
export interface ProcessStart {
  /** A sync id or a flow id. */
  processId: string;
  /** Ad hoc: the one source record (its key value, or a record-store GUID). */
  sourceId?: string | null;
  /** AND-ed with the sync's own filter. */
  whereClause?: string | null;
  actionParams?: readonly ActionParam[] | null;
  /** Aborted when the run must stop (timeout, lost lease, shutdown). */
  signal?: AbortSignal;
  /** Called as the statistics grow (at least once per page); cheap to call. */
  onProgress?: (statistics: Readonly<ItemStatistics>) => void;
  /**
   * Source records given in memory (a webhook's saveWithSync): a sync reads these instead of its
   * source, under its own `where`. Flows ignore it.
   */
  records?: ReadonlyArray<Record<string, unknown>>;
  /**
   * Called once for each source record a sync creates, updates, skips by its match rules, or fails.
   * Records the `where` or the precondition leave out are not reported (they count as skipped).
   */
  onRecord?: (outcome: RecordOutcome) => void;
}

/** What became of one source record of a sync run. */
export interface RecordOutcome {
  /** Its key, first column, GUID — or, for given records, the 1-based position. */
  sourceId: string | undefined;
  result: 'created' | 'updated' | 'skipped' | 'failed';
  /** Keys of the target records written (several under updateAll). */
  keys?: ReadonlyArray<Record<string, unknown>>;
  /** Why it failed. */
  message?: string;
}

export interface RunOutcome {
  /** Complete: the run went through, even with failed records. Failed: the run could not go on. */
  status: 'Complete' | 'Failed';
  statistics: ItemStatistics;
  /** Per-record errors (capped by the sync's maxErrors) and, when Failed, the reason first. */
  errors: NewItemError[];
  /**
   * For a Failed run: true when trying again may help (a system unreachable, a timeout), false when
   * it cannot (unknown process, a WhereClause that does not parse). Ignored when Complete.
   */
  retryable: boolean;
}

/** Runs one process start to its outcome; never throws for a failed run (only for a bug). */
export type RunProcess = (environment: RunEnvironment, start: ProcessStart) => Promise<RunOutcome>;
