/**
 * The file connector reading CSV. A CSV of 1,000,000 rows (nine columns of every type, some cells
 * empty or quoted) is written once to a temporary folder; then, in this process and alternating,
 *
 * (a) a hand-written loop: the file through csv-parse as a stream, `for await` over its records,
 *     each turned into a typed object (Number, === 'true', null for empty cells) — the usual code;
 * (b) the connector's read of every record of an object declared over the file (typed by
 *     decodeValue, through the shared in-memory reader, in pages).
 *
 * It prints the records per second of each and their ratio (goal: the connector ≥ 0.7× the loop),
 * and the peak RSS of each, measured in a child process that does only that read. Last, a ~1 GB
 * CSV is read through the connector in a child process, whose peak RSS it prints (goal < 256 MB:
 * the read streams and never holds the file).
 *
 * `npx tsx test/bench/file-connector.bench.ts`, or `npm run bench file-connector`.
 * BENCH_FILE_ROWS changes the row count, BENCH_FILE_GB the size of the large file (0 skips it).
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'csv-parse';
import * as fileConnector from '../../connectors/file/index.js';
import type { SystemDefinition } from '../../definitions/types.js';
import { median, table } from './stats.js';

const rows = Number(process.env.BENCH_FILE_ROWS ?? 1_000_000);
const largeGb = Number(process.env.BENCH_FILE_GB ?? 1);
const rounds = 5;
const goalRatio = 0.7;
const goalMb = 256;

const system = (directory: string, path: string): SystemDefinition =>
  ({
    kind: 'System',
    id: 'bench',
    connector: 'file',
    connection: { directory },
    queries: {},
    objects: {
      Person: {
        path,
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
        },
      },
    },
  }) as unknown as SystemDefinition;

function line(id: number): string {
  const day = String((id % 28) + 1).padStart(2, '0');
  const month = String((id % 12) + 1).padStart(2, '0');
  const email = id % 9 === 0 ? '' : id % 11 === 0 ? '""' : `person${id}@example.com`;
  const notes = id % 4 === 0 ? '' : id % 5 === 0 ? `"note ${id}, with a comma"` : `note ${id}`;
  return `${id},Person ${id},${email},${id % 3 !== 0},${id % 100},${(id % 1000) / 4 - 50},19${50 + (id % 50)}-${month}-${day},2024-${month}-${day}T${String(id % 24).padStart(2, '0')}:00:07.${String(id % 1000).padStart(3, '0')}Z,${notes}\n`;
}

/** Writes `count` rows (or rows until `bytes`) to `path`; the number of rows written. */
async function writeCsv(path: string, limit: { count?: number; bytes?: number }): Promise<number> {
  const out = createWriteStream(path);
  out.write('id,name,email,active,score,balance,birthday,updated_at,notes\n');
  let written = 0;
  let bytes = 0;
  for (let id = 1; ; id++) {
    if (limit.count !== undefined && written >= limit.count) break;
    if (limit.bytes !== undefined && bytes >= limit.bytes) break;
    let chunk = '';
    for (let end = id + 1000; id < end; id++) chunk += line(id);
    id -= 1;
    written += 1000;
    bytes += chunk.length;
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return written;
}

const orNull = (cell: string): string | null => (cell === '' ? null : cell);

/** (a): csv-parse as a stream, records typed by hand. */
async function handWritten(path: string): Promise<number> {
  let count = 0;
  const parser = createReadStream(path).pipe(parse({ from_line: 2 }));
  for await (const cells of parser as AsyncIterable<string[]>) {
    const record = {
      id: Number(cells[0]),
      name: cells[1],
      email: orNull(cells[2]!),
      active: cells[3] === 'true',
      score: Number(cells[4]),
      balance: Number(cells[5]),
      birthday: cells[6],
      updated_at: cells[7],
      notes: orNull(cells[8]!),
    };
    if (record.id > 0) count += 1;
  }
  return count;
}

/** (b): the connector's read of every record. */
async function throughConnector(directory: string, file: string): Promise<number> {
  const connection = fileConnector.createConnection(system(directory, file), { baseDirectory: directory });
  let count = 0;
  try {
    for await (const page of connection.read('Person')) count += page.length;
  } finally {
    await connection.close();
  }
  return count;
}

interface ChildReport {
  records: number;
  seconds: number;
  maxRssMb: number;
}

async function inChild(mode: 'hand' | 'connector', directory: string, file: string): Promise<ChildReport> {
  const worker = fork(import.meta.filename, ['--child', mode, directory, file], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const reports: ChildReport[] = [];
  worker.on('message', (message) => reports.push(message as ChildReport));
  const [code] = (await once(worker, 'exit')) as [number | null];
  if (code !== 0 || reports.length === 0) throw new Error(`the measuring process exited with ${String(code)}`);
  return reports[0]!;
}

if (process.argv[2] === '--child') {
  const [, , , mode, directory, file] = process.argv;
  const started = performance.now();
  const records = mode === 'hand' ? await handWritten(join(directory!, file!)) : await throughConnector(directory!, file!);
  // resourceUsage().maxRSS is in kilobytes: the peak over the process's whole life.
  process.send!({ records, seconds: (performance.now() - started) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024 });
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const folder = mkdtempSync(join(tmpdir(), 'syncline-bench-file-'));
  try {
    console.log(`\nwriting a CSV of ${rows.toLocaleString('en')} rows…`);
    await writeCsv(join(folder, 'people.csv'), { count: rows });
    console.log(`${(statSync(join(folder, 'people.csv')).size / 1024 ** 2).toFixed(0)} MB`);
    const speeds: Record<'hand' | 'connector', number[]> = { hand: [], connector: [] };
    for (let round = 0; round < rounds; round++) {
      for (const mode of ['hand', 'connector'] as const) {
        const started = performance.now();
        const count = mode === 'hand' ? await handWritten(join(folder, 'people.csv')) : await throughConnector(folder, 'people.csv');
        if (count !== rows) throw new Error(`${mode} read ${count} records, not ${rows}`);
        speeds[mode].push(count / ((performance.now() - started) / 1000));
      }
    }
    const hand = await inChild('hand', folder, 'people.csv');
    const connector = await inChild('connector', folder, 'people.csv');
    const ratio = median(speeds.connector) / median(speeds.hand);
    console.log(
      `\n${table(
        ['read of every record', 'records/s (median of 5)', 'peak RSS (own process)'],
        [
          ['(a) csv-parse stream, typed by hand', median(speeds.hand).toFixed(0), `${hand.maxRssMb.toFixed(0)} MB`],
          ['(b) the file connector', median(speeds.connector).toFixed(0), `${connector.maxRssMb.toFixed(0)} MB`],
        ],
      )}`,
    );
    console.log(`\nconnector / hand-written = ${ratio.toFixed(2)}×; goal ≥ ${goalRatio}×: ${ratio >= goalRatio ? 'met' : 'NOT met'}`);

    if (largeGb > 0) {
      console.log(`\nwriting a CSV of about ${largeGb} GB…`);
      const large = await writeCsv(join(folder, 'large.csv'), { bytes: largeGb * 1024 ** 3 });
      const size = statSync(join(folder, 'large.csv')).size;
      const read = await inChild('connector', folder, 'large.csv');
      if (read.records !== large) throw new Error(`the connector read ${read.records} records, not ${large}`);
      console.log(
        `${(size / 1024 ** 3).toFixed(2)} GB, ${large.toLocaleString('en')} rows read through the connector in ${read.seconds.toFixed(1)} s (${(read.records / read.seconds).toFixed(0)} records/s): peak RSS ${read.maxRssMb.toFixed(0)} MB; goal < ${goalMb} MB: ${read.maxRssMb < goalMb ? 'met' : 'NOT met'}`,
      );
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
