/**
 * Holds the snapshot being served. A reload swaps one reference: a request that read `current`
 * keeps using that snapshot to the end, and nobody ever sees a mixture of two.
 */
import { EventEmitter } from 'node:events';
import type { Problem } from './problem.js';
import type { Snapshot } from './snapshot.js';

export interface ReloadStatus {
  /** When the last reload attempt finished. */
  at: Date;
  ok: boolean;
  /** Problems of the last attempt; when it succeeded, its warnings (usually none). */
  problems: readonly Problem[];
  /** How long the last attempt took, in milliseconds. */
  durationMs: number;
}

export interface SnapshotHolderEvents {
  swap: [snapshot: Snapshot, previous: Snapshot];
  rejected: [problems: readonly Problem[]];
}

export class SnapshotHolder extends EventEmitter<SnapshotHolderEvents> {
  #current: Snapshot;
  #status: ReloadStatus;

  constructor(initial: Snapshot) {
    super();
    this.#current = initial;
    this.#status = Object.freeze({ at: initial.loadedAt, ok: true, problems: [], durationMs: 0 });
  }

  get current(): Snapshot {
    return this.#current;
  }

  get status(): ReloadStatus {
    return this.#status;
  }

  swap(next: Snapshot, durationMs: number, warnings: readonly Problem[] = []): void {
    const previous = this.#current;
    this.#current = next;
    this.#status = Object.freeze({ at: new Date(), ok: true, problems: Object.freeze([...warnings]), durationMs });
    this.emit('swap', next, previous);
  }

  reject(problems: readonly Problem[], durationMs: number): void {
    this.#status = Object.freeze({ at: new Date(), ok: false, problems: Object.freeze([...problems]), durationMs });
    this.emit('rejected', problems);
  }
}
