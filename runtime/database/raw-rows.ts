/** The rows of a `knex.raw` result, whatever the driver: pg answers `{rows}`, mysql2 `[rows, fields]`, sqlite3 the rows. */
export function rawRows(result: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(result)) return (Array.isArray(result[0]) ? result[0] : result) as Array<Record<string, unknown>>;
  return ((result as { rows?: unknown[] }).rows ?? []) as Array<Record<string, unknown>>;
}
