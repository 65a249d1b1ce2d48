/**
 * A field set on a record as its own property, whatever its name. Plain assignment of the name
 * `__proto__` sets the record's prototype instead: a JSON body's `{"note": "x", "__proto__": {"id": 2}}`
 * (JSON.parse keeps `__proto__` as an ordinary key) copied field by field would lend the record an
 * `id` it does not list — unseen by the checks of its fields, read by its match — and update
 * record 2. As an own property, `__proto__` is one more field, refused as unknown like any other.
 */
export function setOwnField(record: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
  else record[name] = value;
}
