/**
 * A read-only session of a free query on PostgreSQL (read-only-session.ts says what it promises):
 * `BEGIN READ ONLY` on a session whose default is read-only too (engines/postgres.ts); the
 * extended protocol, which refuses a second statement (`SELECT 1; DELETE …`). Rows come from a
 * cursor (`DECLARE … NO SCROLL CURSOR`) read with FETCH, in batches sized to about a megabyte of
 * rows; stopping just leaves the cursor to the ROLLBACK. Every statement of the session gets only
 * the time left (`SET LOCAL statement_timeout`), so a cursor's many FETCHes share one budget.
 */
import type { DriverSession, Row } from '../read-only-session.js';
import { Deadline } from '../statement-timeout.js';

export interface PgClient {
  query(config: string | { text: string; values: unknown[]; queryMode: 'extended' }): Promise<{ rows: Row[] }>;
}

/** Rows fetched per FETCH: about this many bytes of them, judged by the previous batch. */
const PG_BATCH_BYTES = 1024 * 1024;
const PG_BATCH_ROWS = { first: 100, most: 1000 };

export function pgSession(client: PgClient, timeoutMs: number | undefined): DriverSession {
  const deadline = new Deadline(timeoutMs);
  // The remaining time for the next statement of the transaction.
  const limit = async (): Promise<void> => {
    const left = deadline.left();
    if (left !== undefined) await client.query(`SET LOCAL statement_timeout = ${Math.ceil(left)}`);
  };
  return {
    begin: async () => void (await client.query('BEGIN READ ONLY')),
    all: async (text, values) => {
      await limit();
      return (await client.query({ text, values: [...values], queryMode: 'extended' })).rows;
    },
    each: async (text, values, sink) => {
      await limit();
      // A newline before the statement: it may begin with a comment line.
      await client.query({ text: `DECLARE syncline_rows NO SCROLL CURSOR FOR\n${text}`, values: [...values], queryMode: 'extended' });
      let size = PG_BATCH_ROWS.first;
      for (;;) {
        await limit();
        const { rows } = await client.query(`FETCH FORWARD ${size} FROM syncline_rows`);
        for (const row of rows) if (!sink(row)) return;
        if (rows.length < size) return;
        const rowBytes = Math.max(1, JSON.stringify(rows[0]).length);
        size = Math.max(1, Math.min(PG_BATCH_ROWS.most, Math.floor(PG_BATCH_BYTES / rowBytes)));
      }
    },
    disarm: () => undefined,
    rollback: async () => void (await client.query('ROLLBACK')),
  };
}
