/**
 * Several writes of one object: one request (or two: find, then write) per record, at most
 * connection.writeConcurrency at once, each with exactly the meaning of `write`. The answer holds,
 * in request order, each WriteResult or the ConnectorError of its record (a record the API
 * refuses fails alone; the others go on).
 *
 * Writes naming the same record — the same match, or the same key — run one after the other in
 * request order: the later one finds what the earlier created, as a sync expects of a page in
 * which two source records map to one target record. Writes of different records run side by side.
 *
 * An error that is not the record's own — the system unreachable, a timeout, a refusal of our
 * credentials, a server failure, too many requests — stops the batch: no more writes are started
 * and those under way finish. What was written stays written (an API has no transaction to roll
 * back; the spec says `transactions: false`), so the caller must hear of it: the answer then holds
 * the WriteResult of each write made and that error at each position not written. Only when no
 * record was created or updated is the error thrown, since the whole batch can then be tried again.
 */
import type { WriteRequest, WriteResult } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { checkFieldValue } from '../records/field-values.js';
import type { HttpObject } from './http-object.js';
import type { ObjectScope } from './read.js';
import { KEYLESS_CREATE, writeRecord } from './write.js';

/** Errors about the system or the batch, not about one record. */
const SYSTEM_CODES: ReadonlySet<string> = new Set(['unavailable', 'timeout', 'busy', 'definition-mismatch', 'too-large']);

/** Whether the batch goes on after `error`: it is about its record alone. */
function recordsOwn(error: unknown): error is ConnectorError {
  if (!(error instanceof ConnectorError)) return false;
  // The answer to one create lacked its key: that record is in doubt, the system answers the others.
  return !SYSTEM_CODES.has(error.code) || error.details?.reason === KEYLESS_CREATE;
}

/** What identifies the record a request writes (its match, or its key), comparable across requests; undefined: a new record. */
export function recordIdentity(object: HttpObject, request: WriteRequest): string | undefined {
  const names =
    request.match !== undefined && Object.keys(request.match).length > 0
      ? Object.keys(request.match).sort()
      : object.key.every((name) => request.values[name] !== undefined && request.values[name] !== null)
        ? [...object.key]
        : undefined;
  if (names === undefined) return undefined;
  const source = request.match !== undefined && Object.keys(request.match).length > 0 ? request.match : request.values;
  return JSON.stringify(
    names.map((name) => {
      const field = object.fields.get(name);
      try {
        return [name, field === undefined ? source[name] : checkFieldValue(field.type, source[name], { label: name })];
      } catch {
        // The write itself refuses this value; any identity will do.
        return [name, String(source[name])];
      }
    }),
  );
}

export async function writeMany(
  scope: ObjectScope,
  requests: readonly WriteRequest[],
  concurrency: number,
): Promise<Array<WriteResult | ConnectorError>> {
  const results: Array<WriteResult | ConnectorError> = new Array(requests.length);
  let stopped: unknown;
  let running = 0;
  const queue: Array<() => void> = [];
  const slot = async (): Promise<void> => {
    if (running < concurrency) {
      running += 1;
      return;
    }
    await new Promise<void>((resolve) => queue.push(resolve));
  };
  const release = (): void => {
    const next = queue.shift();
    if (next === undefined) running -= 1;
    else next();
  };
  const run = async (index: number): Promise<void> => {
    await slot();
    try {
      if (stopped !== undefined) return;
      results[index] = await writeRecord(scope, requests[index]!);
    } catch (error) {
      if (recordsOwn(error)) results[index] = error;
      else stopped ??= error;
    } finally {
      release();
    }
  };
  const chains = new Map<string, Promise<void>>();
  const all: Array<Promise<void>> = [];
  requests.forEach((request, index) => {
    const identity = recordIdentity(scope.object, request);
    const before = identity === undefined ? undefined : chains.get(identity);
    const task = before === undefined ? run(index) : before.then(() => run(index));
    if (identity !== undefined) chains.set(identity, task);
    all.push(task);
  });
  await Promise.all(all);
  if (stopped === undefined) return results;
  const written = results.some((result) => result !== undefined && !(result instanceof ConnectorError) && result.action !== 'skipped');
  // An unknown throw is a bug of ours, not the system's answer to the writes not made.
  if (!written || !(stopped instanceof ConnectorError)) throw stopped;
  for (let index = 0; index < results.length; index += 1) results[index] ??= stopped;
  return results;
}
