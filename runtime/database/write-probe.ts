/**
 * Whether the runtime database takes writes, for /readyz. Reads go on answering while writes fail
 * — a full disk, a standby after a failover, an SQLite file on a full or read-only filesystem — so
 * a read tells readiness nothing about them. It learns two ways:
 *
 * - Every statement on the runtime database that fails with a failure of the database itself
 *   (database-failure.ts) marks writes failing at once, whoever ran it: a route, the daemon, the
 *   call log. Knex reports each failed statement as a `query-error` event.
 * - A small write of its own tells whether writes work now: one row of `write_probe` upserted.
 *   It runs when /readyz asks and the last one is older than `probeEveryMs` — or, while writes are
 *   failing, older than `retryEveryMs`, so recovery shows within about a second. One at a time,
 *   shared by every caller meanwhile.
 *
 * So however often /readyz is asked (it needs no token), the database gets at most one small write
 * per 10 s while all is well, and one per second while writes fail. The answer can be up to 10 s
 * old for a failure no statement has met yet; a failure a statement met shows at once.
 */
import { hostname } from 'node:os';
import { runtimeDatabaseFailure, type RuntimeDatabaseFailure } from './database-failure.js';
import type { RuntimeDatabase } from './open-database.js';
import { toDatabaseTime } from './timestamps.js';

export type WriteState = { ok: true } | { ok: false; reason: string };

const probeEveryMs = 10_000;
const retryEveryMs = 1000;
const probedBy = `${hostname()}:${process.pid}`.slice(0, 128);

class WriteHealth {
  readonly #db: RuntimeDatabase;
  #failure: RuntimeDatabaseFailure | undefined;
  #probedAt = Number.NEGATIVE_INFINITY;
  #probing: Promise<WriteState> | undefined;

  constructor(db: RuntimeDatabase) {
    this.#db = db;
    db.knex.on('query-error', (error: unknown) => {
      const failure = runtimeDatabaseFailure(error);
      if (failure !== undefined) this.#failure = failure;
    });
  }

  /** Whether writes work, probing when the last probe is due again. */
  check(now = Date.now()): Promise<WriteState> {
    if (this.#probing !== undefined) return this.#probing;
    if (now - this.#probedAt < (this.#failure === undefined ? probeEveryMs : retryEveryMs)) return Promise.resolve(this.#state());
    this.#probedAt = now;
    const probing = this.#probe().finally(() => {
      this.#probing = undefined;
    });
    this.#probing = probing;
    return probing;
  }

  async #probe(): Promise<WriteState> {
    const row = { id: 1, probed_at: toDatabaseTime(this.#db.dialect, new Date()), probed_by: probedBy };
    try {
      await this.#db.knex('write_probe').insert(row).onConflict('id').merge();
      this.#failure = undefined;
    } catch (error) {
      this.#failure = runtimeDatabaseFailure(error) ?? { kind: 'file', reason: `a test write failed${errorCode(error)}` };
    }
    return this.#state();
  }

  #state(): WriteState {
    return this.#failure === undefined ? { ok: true } : { ok: false, reason: this.#failure.reason };
  }
}

/** ` (CODE)` for an error with a driver code, else nothing: /readyz answers without a token, so never the driver's message. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code) ? ` (${code})` : '';
}

const healths = new WeakMap<RuntimeDatabase, WriteHealth>();

/**
 * The database's write health, made on first use; make it when the process starts serving, so
 * that failures are noted from the first statement on.
 */
export function writeHealth(db: RuntimeDatabase): { check(now?: number): Promise<WriteState> } {
  let health = healths.get(db);
  if (health === undefined) {
    health = new WriteHealth(db);
    healths.set(db, health);
  }
  return health;
}
