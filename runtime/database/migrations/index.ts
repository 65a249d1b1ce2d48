/** Every migration, in order. A new one is appended with the next number; released ones never change. */
import { queueItems } from './001-queue-items.js';
import { recordStore } from './002-record-store.js';
import { schedules } from './003-schedules.js';
import { webhookIdempotency } from './004-webhook-idempotency.js';
import { webhookLog } from './005-webhook-log.js';
import { queueConcurrency } from './006-queue-concurrency.js';
import { writeProbe } from './007-write-probe.js';
import { daemons } from './008-daemons.js';
import { requestIds } from './009-request-ids.js';
import { queueListing } from './010-queue-listing.js';
import { syncCursors } from './011-sync-cursors.js';
import { queueClaimFunction } from './012-queue-claim-function.js';
import { queueLookups } from './013-queue-lookups.js';
import { cursorSources } from './014-cursor-sources.js';
import { claimHead } from './015-claim-head.js';
import { claimPastFullKeys } from './016-claim-past-full-keys.js';
import type { Migration } from './migration.js';

export const migrations: readonly Migration[] = Object.freeze([
  queueItems,
  recordStore,
  schedules,
  webhookIdempotency,
  webhookLog,
  queueConcurrency,
  writeProbe,
  daemons,
  requestIds,
  queueListing,
  syncCursors,
  queueClaimFunction,
  queueLookups,
  cursorSources,
  claimHead,
  claimPastFullKeys,
]);
