/**
 * Calls the console starts (a test, a replay of a pinned entry) run through the same
 * `executeWebhook` as any caller, and the endpoint records them with `recordWebhookCall` like any
 * call. The console says beforehand what the call id it chose is for; the recorder takes that note
 * when it writes the entry, so the entry says "test" or "replay of <entry>".
 *
 * The notes live in this process only, which is enough: the console runs the call in-process.
 * A note nobody takes (the call failed before it was recorded) is dropped after a minute.
 */
export interface CallOrigin {
  origin: 'test' | 'replay';
  /** The entry a replay repeats. */
  replayOf?: string;
}

const notes = new Map<string, CallOrigin>();
const forgetAfterMs = 60_000;

/** Notes what the call with `callId` is for; call before starting it. */
export function noteCallOrigin(callId: string, origin: CallOrigin): void {
  notes.set(callId, origin);
  setTimeout(() => notes.delete(callId), forgetAfterMs).unref();
}

/** The note for `callId`, once; undefined for a call from outside. */
export function takeCallOrigin(callId: string): CallOrigin | undefined {
  const origin = notes.get(callId);
  if (origin) notes.delete(callId);
  return origin;
}
