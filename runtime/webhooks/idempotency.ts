/**
 * Idempotency (`idempotency: {header | bodyPath, window}`): the first call with a key runs and its
 * answer is remembered in the runtime database (table webhook_idempotency, migration 004), so
 * every process sees it; a repeat within the window gets that answer and runs nothing; a repeat
 * while the first is still running gets 409 (the sender retries later and then gets the answer).
 *
 * Only successful answers are remembered. A call that failed releases its key, so the sender's
 * retry — the usual reaction to a 5xx — runs again instead of being told the failure forever.
 *
 * The statements, all bound values (the key is stored as its SHA-256):
 * - claim: `DELETE … WHERE webhook_id = ? AND key_hash = ? AND expires_at < now` (a stale row),
 *   then `INSERT (state 'running', expires_at now + lease)`; a primary-key violation means
 *   another call holds or held the key, and its row says which;
 * - complete: `UPDATE … SET state 'done', answer, expires_at = now + window WHERE … AND claim_id = ?`;
 * - release: `DELETE … WHERE … AND claim_id = ?`.
 * The running lease is the same for every window: a short window must not let a retry run the
 * action again while the first call still runs. `claim_id` keeps a call whose lease ran out from
 * finishing or freeing a later call's claim.
 * Expired rows of a webhook are swept at most once a minute per process, on a claim.
 */
import { createHash, randomUUID } from 'node:crypto';
import { parseDuration } from '../../definitions/duration.js';
import type { WebhookDefinition } from '../../definitions/types.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';
import { resolvePath } from '../../definitions/expression/index.js';
import type { WebhookRequest } from './webhook-call.js';
import { first } from './webhook-secret.js';

type Settings = NonNullable<WebhookDefinition['idempotency']>;

/** What a repeat is answered with. */
export interface RememberedAnswer {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
}

export type KeyClaim =
  | { kind: 'claimed'; complete(answer: RememberedAnswer): Promise<void>; release(): Promise<void> }
  | { kind: 'running' }
  | { kind: 'done'; answer: RememberedAnswer };

/** The schema's default window, for a definition built without defaults. */
const defaultWindowMs = 24 * 3_600_000;
/** How long a running call holds its key before another may take it (the process may have died). */
const runningLeaseMs = 10 * 60_000;
const sweepEveryMs = 60_000;
const lastSweep = new Map<string, number>();
const table = 'webhook_idempotency';

/** The call's key: the configured body field, else the header; undefined when the call has none. */
export function idempotencyKeyOf(settings: Settings, request: WebhookRequest): string | undefined {
  if (settings.bodyPath !== undefined) {
    const value = resolvePath(request.data, settings.bodyPath.split('.'));
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  }
  const value = first(request.headers[(settings.header ?? 'Idempotency-Key').toLowerCase()]);
  return value === undefined || value === '' ? undefined : value;
}

export function idempotencyWindowMs(settings: Settings): number {
  return parseDuration(settings.window ?? '') ?? defaultWindowMs;
}

export async function claimIdempotencyKey(
  db: RuntimeDatabase,
  webhookId: string,
  key: string,
  windowMs: number,
  now = new Date(),
): Promise<KeyClaim> {
  const keyHash = createHash('sha256').update(key).digest('hex');
  const at = (ms: number) => toDatabaseTime(db.dialect, new Date(now.getTime() + ms));
  const row = { webhook_id: webhookId, key_hash: keyHash };
  const claimId = randomUUID();
  await sweep(db, webhookId, now);
  // Twice at most: the row that blocked the insert may expire or be released before it is read.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    await db.knex(table).where(row).andWhere('expires_at', '<', at(0)).delete();
    try {
      await db
        .knex(table)
        .insert({ ...row, state: 'running', claim_id: claimId, answer: null, created_at: at(0), expires_at: at(runningLeaseMs) });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const held = (await db.knex(table).where(row).first('state', 'answer')) as { state: string; answer: unknown } | undefined;
      if (!held) continue;
      if (held.state !== 'done') return { kind: 'running' };
      return { kind: 'done', answer: (typeof held.answer === 'string' ? JSON.parse(held.answer) : held.answer) as RememberedAnswer };
    }
    return {
      kind: 'claimed',
      async complete(answer) {
        const done = new Date();
        await db
          .knex(table)
          .where({ ...row, claim_id: claimId })
          .update({
            state: 'done',
            answer: JSON.stringify(answer),
            expires_at: toDatabaseTime(db.dialect, new Date(done.getTime() + windowMs)),
          });
      },
      async release() {
        await db
          .knex(table)
          .where({ ...row, claim_id: claimId })
          .delete();
      },
    };
  }
  return { kind: 'running' };
}

async function sweep(db: RuntimeDatabase, webhookId: string, now: Date): Promise<void> {
  if (now.getTime() - (lastSweep.get(webhookId) ?? 0) < sweepEveryMs) return;
  lastSweep.set(webhookId, now.getTime());
  await db.knex(table).where({ webhook_id: webhookId }).andWhere('expires_at', '<', toDatabaseTime(db.dialect, now)).delete();
}

/** A primary-key violation on any of the three engines. */
function isDuplicateKey(error: unknown): boolean {
  const code = String((error as { code?: unknown }).code ?? '');
  return code === '23505' || code === 'ER_DUP_ENTRY' || code.startsWith('SQLITE_CONSTRAINT');
}
