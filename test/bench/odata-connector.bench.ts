/**
 * Reading a large OData entity set: SAP CAP serving 100,000 customers (seeded from a CSV data file,
 * test/support/odata-server.ts), read whole in pages of 1,000, alternately
 *
 * (a) by a hand-written loop: fetch, follow `@odata.nextLink`, build each record with its values
 *     typed (numbers, booleans, ISO dates and date-times in UTC, JSON parsed), and
 * (b) by the `odata` connector's `read` (its $metadata already read once),
 *
 * with the same `$select` and `$orderby`, and prints records/s of each (median of the rounds), the
 * connector's share of the loop's speed (the goal is at least 0.7×) and the resident set size of this
 * process after each.
 *
 * `npx tsx test/bench/odata-connector.bench.ts`, or `npm run bench odata-connector`.
 * BENCH_ODATA_RECORDS and BENCH_ODATA_ROUNDS change the size and the number of rounds.
 */
import type { RecordData } from '../../connectors/connection.js';
import * as odata from '../../connectors/odata/index.js';
import type { SystemDefinition } from '../../definitions/types.js';
import { startODataServer } from '../support/odata-server.js';
import { median, table } from './stats.js';

const RECORDS = Number(process.env.BENCH_ODATA_RECORDS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ODATA_ROUNDS ?? 3);
const PAGE = 1000;
const FIELDS = ['id', 'name', 'email', 'active', 'score', 'balance', 'birthday', 'updated_at', 'notes', 'meta'] as const;

/** The CSV CAP loads into Customers at start (CDS data file naming: <namespace>-<entity>.csv). */
function customersCsv(count: number): string {
  const lines = [FIELDS.join(';')];
  for (let id = 1; id <= count; id += 1) {
    const n = id * 7919;
    const month = String((n % 12) + 1).padStart(2, '0');
    const day = String((n % 28) + 1).padStart(2, '0');
    lines.push(
      [
        id,
        `Customer ${id}`,
        id % 9 === 0 ? '' : `c${id}@example.com`,
        id % 3 === 0 ? 'false' : 'true',
        id % 8 === 0 ? '' : n % 100,
        (n % 1000) / 4 - 50,
        `19${50 + (n % 50)}-${month}-${day}`,
        `2024-${month}-${day}T${String(n % 24).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}:07.${String(n % 1000).padStart(3, '0')}Z`,
        `note ${id}`,
        id % 5 === 0 ? '' : `"{""tier"":${id % 3}}"`,
      ].join(';'),
    );
  }
  return `${lines.join('\n')}\n`;
}

function system(url: string): SystemDefinition {
  return {
    kind: 'System',
    id: 'bench',
    connector: 'odata',
    connection: { baseUrl: url, maxPageSize: PAGE },
    objects: {
      Customer: {
        entitySet: 'Customers',
        key: ['id'],
        fields: {
          id: { type: 'Integer' },
          name: { type: 'String' },
          email: { type: 'String' },
          active: { type: 'Boolean' },
          score: { type: 'Integer' },
          balance: { type: 'Number' },
          birthday: { type: 'Date' },
          updated_at: { type: 'DateTime' },
          notes: { type: 'String' },
          meta: { type: 'Json' },
        },
      },
    },
    queries: {},
  } as SystemDefinition;
}

/** (a): what one would write by hand with fetch. */
async function handWritten(url: string): Promise<number> {
  let next: string | undefined = `${url}Customers?$select=${FIELDS.join(',')}&$orderby=id%20asc&$top=${RECORDS}`;
  let count = 0;
  let checksum = 0;
  while (next !== undefined) {
    const response = await fetch(next, { headers: { accept: 'application/json', prefer: `odata.maxpagesize=${PAGE}` } });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body = (await response.json()) as { value: Array<Record<string, unknown>>; '@odata.nextLink'?: string };
    for (const entity of body.value) {
      const record: RecordData = {
        id: Number(entity.id),
        name: entity.name ?? null,
        email: entity.email ?? null,
        active: entity.active === null || entity.active === undefined ? null : Boolean(entity.active),
        score: entity.score === null || entity.score === undefined ? null : Number(entity.score),
        balance: entity.balance === null || entity.balance === undefined ? null : Number(entity.balance),
        birthday: entity.birthday ?? null,
        updated_at: typeof entity.updated_at === 'string' ? new Date(entity.updated_at).toISOString() : null,
        notes: entity.notes ?? null,
        meta: typeof entity.meta === 'string' ? JSON.parse(entity.meta) : null,
      };
      checksum += record.id as number;
      count += 1;
    }
    const link = body['@odata.nextLink'];
    next = link === undefined ? undefined : new URL(link, new URL('$metadata', url)).href;
  }
  if (checksum !== (RECORDS * (RECORDS + 1)) / 2) throw new Error('the loop did not read every record once');
  return count;
}

/** (b): the connector. */
async function connector(connection: ReturnType<typeof odata.createConnection>): Promise<number> {
  let count = 0;
  let checksum = 0;
  for await (const page of connection.read('Customer', { pageSize: PAGE })) {
    for (const record of page) checksum += record.id as number;
    count += page.length;
  }
  if (checksum !== (RECORDS * (RECORDS + 1)) / 2) throw new Error('the connector did not read every record once');
  return count;
}

const rssMb = (): string => `${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MB`;

const seeding = performance.now();
const server = await startODataServer({ pageLimit: PAGE, files: { 'db/data/crm-Customers.csv': customersCsv(RECORDS) } });
console.log(`CAP serving ${RECORDS.toLocaleString('en')} customers, started in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
const connection = odata.createConnection(system(server.url), { baseDirectory: process.cwd() });
try {
  if ((await connection.count('Customer')) !== RECORDS) throw new Error('the service does not hold the records');
  const rates: Record<'loop' | 'connector', number[]> = { loop: [], connector: [] };
  const rows: string[][] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const [name, run] of [
      ['loop', () => handWritten(server.url)],
      ['connector', () => connector(connection)],
    ] as const) {
      const started = performance.now();
      const count = await run();
      const seconds = (performance.now() - started) / 1000;
      rates[name].push(count / seconds);
      rows.push([
        `round ${round}`,
        name === 'loop' ? '(a) fetch + nextLink loop' : '(b) odata connector',
        `${Math.round(count / seconds).toLocaleString('en')}/s`,
        `${seconds.toFixed(2)} s`,
        rssMb(),
      ]);
    }
  }
  console.log(table(['round', 'reader', 'records', 'time', 'RSS after'], rows));
  const loop = median(rates.loop);
  const ours = median(rates.connector);
  console.log(
    `\nmedian: loop ${Math.round(loop).toLocaleString('en')} records/s, connector ${Math.round(ours).toLocaleString('en')} records/s, ratio ${(ours / loop).toFixed(2)}× (goal ≥ 0.7×); peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
  );
} finally {
  await connection.close();
  await server.stop();
}
