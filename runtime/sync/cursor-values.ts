/**
 * Values of a sync's cursor field as marks (sync-cursor.ts): each type's text, order, and the
 * bound a run reads from.
 *
 * | type     | mark text                  | a run reads                        | a failed value v caps the mark at |
 * |----------|----------------------------|------------------------------------|-----------------------------------|
 * | DateTime | `2024-01-05T10:00:00.000Z` | `field >= mark - lookBack`         | v                                 |
 * | Date     | `2024-01-05`               | `field >= mark - lookBack` (a day) | v                                 |
 * | Integer  | `12345` (any length)       | `field > mark`                     | v - 1                             |
 *
 * Timestamps are read from the mark itself on (`>=`), not past it: records that share the mark's
 * timestamp but were committed after the run read are not lost. The few records read again are
 * found unchanged and not written. An Integer key is unique and grows, so `>` re-reads nothing.
 * Either way the next run reads every failed record again.
 */
import { toEpochMillis } from '../../definitions/expression/iso-dates.js';
import type { SyncCursor } from '../../definitions/snapshot.js';

type CursorType = SyncCursor['type'];

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const INTEGER = /^[-+]?\d+$/;
const DAY_MS = 86_400_000;

/** A record's cursor value as mark text; undefined when it has none (null) or it is not of the type. */
export function markText(type: CursorType, value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  switch (type) {
    case 'DateTime': {
      const millis = toEpochMillis(value);
      return millis === null ? undefined : new Date(millis).toISOString();
    }
    case 'Date': {
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString().slice(0, 10);
      const text = typeof value === 'string' ? value.trim().slice(0, 10) : '';
      return DATE.test(text) ? text : undefined;
    }
    case 'Integer': {
      const text =
        typeof value === 'number'
          ? Number.isSafeInteger(value)
            ? String(value)
            : ''
          : typeof value === 'bigint'
            ? String(value)
            : typeof value === 'string'
              ? value.trim()
              : '';
      return INTEGER.test(text) ? BigInt(text).toString() : undefined;
    }
  }
}

/** Negative when `a` comes before `b`, 0 when equal, positive after; both mark texts of `type`. */
export function compareCursorValues(type: CursorType, a: string, b: string): number {
  switch (type) {
    case 'DateTime':
      return Date.parse(a) - Date.parse(b);
    case 'Date':
      return a < b ? -1 : a > b ? 1 : 0;
    case 'Integer': {
      const x = BigInt(a);
      const y = BigInt(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
  }
}

/** The value a run reads from (with `>=`) or past (with `>`), as bound to the filter. */
export function readBound(cursor: SyncCursor, mark: string): { op: '>' | '>='; value: string | number } {
  switch (cursor.type) {
    case 'DateTime':
      return { op: '>=', value: new Date(Date.parse(mark) - cursor.lookBackMs).toISOString() };
    case 'Date': {
      // A look-back of part of a day still reaches into the day before.
      const days = Math.ceil(cursor.lookBackMs / DAY_MS);
      return { op: '>=', value: new Date(Date.parse(`${mark}T00:00:00.000Z`) - days * DAY_MS).toISOString().slice(0, 10) };
    }
    case 'Integer': {
      const number = Number(mark);
      return { op: '>', value: Number.isSafeInteger(number) ? number : mark };
    }
  }
}

/** The highest mark that still reads a record of failed value `failed` again. */
export function markBelowFailure(type: CursorType, failed: string): string {
  return type === 'Integer' ? (BigInt(failed) - 1n).toString() : failed;
}
