/** Reading JSON and id columns the same way on every engine (times: see timestamps.ts). */

/** A JSON column's value: text on SQLite and MariaDB, already parsed by pg on PostgreSQL. */
export function fromJsonColumn(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `text` can be one of our ids (queue items, record-store GUIDs). Ids come from outside
 * (URLs, webhooks); PostgreSQL answers anything else in a `uuid` comparison with an error instead
 * of "no row", so such text is settled before it reaches SQL.
 */
export function isUuid(text: string): boolean {
  return uuidPattern.test(text);
}
