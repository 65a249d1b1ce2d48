/**
 * Writes that would change nothing are not made: a matched target record that already holds every
 * value a write sets is left as it is, and the source record counts as skipped — and as unchanged
 * (ItemStatistics.unchanged). An incremental run re-reads records within its look-back, and a full
 * run re-reads everything; neither rewrites what is already there.
 *
 * A write is left out only when nothing about it can be different once made:
 * - it updates a record the search found (never a create, nor a record an earlier record of the
 *   page creates, which the run knows only by its match values);
 * - every field it sets is a writable field of the target object that the found record holds
 *   (a field the record was read without, a read-only or unknown field: the write goes to the
 *   connector, which writes or refuses it as before);
 * - each value compares equal as the field's type compares values (changed-fields.ts).
 * A dry run plans the same (plan-writer.ts), so its statistics are what the run counts. Records
 * given to a run (a webhook's saveWithSync) are written as given: the caller hears created or
 * updated for each, as before.
 */
import type { ObjectDescription, RecordData, WriteRequest } from '../../connectors/connection.js';
import type { ConnectorError } from '../../connectors/connector-error.js';
import { ChangedFields } from './changed-fields.js';
import { type LeftAsIs, type PendingWrite, type RunWriter, type RunWriteResult, wrapWriter } from './run-writer.js';

export class UnchangedCheck {
  private readonly changed: ChangedFields;
  private readonly writable: ReadonlySet<string>;
  private readonly groups: ReadonlyMap<string, { types: ReadonlySet<string>; fields: ReadonlySet<string> }>;

  constructor(private readonly description: ObjectDescription) {
    this.changed = new ChangedFields(description);
    this.writable = new Set(description.fields.filter((field) => !field.readOnly).map((field) => field.name));
    this.groups = new Map(
      description.groups.map((group) => [
        group.name,
        { types: new Set(group.types), fields: new Set(group.fields.filter((field) => !field.readOnly).map((field) => field.name)) },
      ]),
    );
  }

  /** Whether writing `request` over `found` (the record as the search found it) would change nothing. */
  holds(found: Readonly<RecordData> | undefined, request: WriteRequest): boolean {
    if (found === undefined) return false;
    for (const name of Object.keys(request.values)) {
      if (request.values[name] === undefined) continue;
      if (!this.writable.has(name) || !Object.hasOwn(found, name)) return false;
    }
    for (const [name, entries] of Object.entries(request.groups ?? {})) {
      const group = this.groups.get(name);
      const held = found[name];
      if (group === undefined || !isRecord(held) || !isRecord(entries)) return false;
      for (const [type, entry] of Object.entries(entries)) {
        const current = held[type];
        if (!group.types.has(type) || !isRecord(entry) || !isRecord(current)) return false;
        for (const field of Object.keys(entry)) {
          if (entry[field] !== undefined && (!group.fields.has(field) || !Object.hasOwn(current, field))) return false;
        }
      }
    }
    return !this.changed.any(found, request);
  }

  /** The answer for a write left out: the found record's key (the match values when it lacks one). */
  leftAsIs(found: Readonly<RecordData>, request: WriteRequest): LeftAsIs {
    const key = this.description.key;
    const complete = key.length > 0 && key.every((field) => found[field] !== undefined && found[field] !== null);
    return {
      action: 'unchanged',
      key: complete ? Object.fromEntries(key.map((field) => [field, found[field]])) : { ...(request.match ?? {}) },
    };
  }
}

function isRecord(value: unknown): value is RecordData {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `writer`, handed only the requests that change something; the others are answered `unchanged` in their place. */
export function skipUnchanged(writer: RunWriter, description: ObjectDescription): RunWriter {
  const check = new UnchangedCheck(description);
  return wrapWriter(writer, {
    async write(writes: readonly PendingWrite[]): Promise<Array<RunWriteResult | ConnectorError>> {
      // In order, per request: its answer when left out, or null for the writer's answer.
      const answers: Array<LeftAsIs | null> = [];
      const remaining: PendingWrite[] = [];
      let left = 0;
      for (const write of writes) {
        const requests: WriteRequest[] = [];
        const found: Array<RecordData | undefined> = [];
        for (const [index, request] of write.requests.entries()) {
          const target = write.found[index];
          if (target !== undefined && check.holds(target, request)) {
            answers.push(check.leftAsIs(target, request));
            left += 1;
          } else {
            answers.push(null);
            requests.push(request);
            found.push(target);
          }
        }
        if (requests.length > 0)
          remaining.push(requests.length === write.requests.length ? write : { record: write.record, requests, found });
      }
      if (left === 0) return writer.write(writes);
      const written = remaining.length === 0 ? [] : await writer.write(remaining);
      let next = 0;
      return answers.map((answer) => answer ?? written[next++]!);
    },
  });
}
