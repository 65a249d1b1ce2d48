/**
 * What reading and writing JSON without rounding costs (connectors/records/exact-json.ts,
 * json-number-text.ts): a page of 500 records as a REST API answers it, parsed by JSON.parse and by
 * parseExactJson side by side in one process — once with ids a double holds (the common case: one
 * regular expression over the text more) and once with 64-bit ids past 2^53 (the text is scanned
 * and parsed again with those numbers quoted). Then the same records written: JSON.stringify
 * against stringifyJson, without marked numbers (a walk that finds none, then JSON.stringify) and
 * with every id a JsonNumberText (our writer; JSON.stringify writes those ids as strings). Rounds
 * alternate which side goes first.
 *
 * `npx tsx test/bench/exact-json.bench.ts`, or `npm run bench exact-json`. BENCH_JSON_ROUNDS
 * (default 5), BENCH_JSON_PARSES (parses per round and parser, default 2000).
 */
import { parseExactJson } from '../../connectors/records/exact-json.js';
import { JsonNumberText, stringifyJson } from '../../connectors/records/json-number-text.js';
import { median, table } from './stats.js';

const rounds = Number(process.env.BENCH_JSON_ROUNDS ?? 5);
const parses = Number(process.env.BENCH_JSON_PARSES ?? 2000);

/** A page of 500 customers; `wide`: their ids past 2^53, as a snowflake id is. */
function page(wide: boolean): string {
  const first = wide ? 9007199254740993n : 1n;
  const records = Array.from({ length: 500 }, (_, index) => ({
    id: `@${first + BigInt(index) * 2n}@`,
    name: `Customer ${index}`,
    email: `customer${index}@example.com`,
    city: index % 2 ? 'London' : 'Leeds',
    updatedAt: new Date(Date.UTC(2026, 0, 1) + index * 1000).toISOString(),
    total: index * 1.25,
    tags: ['retail', 'newsletter'],
  }));
  // The ids as bare JSON numbers, which JSON.stringify of a bigint cannot write.
  return JSON.stringify(records).replace(/"@(\d+)@"/g, '$1');
}

function microsecondsPer<T>(work: (input: T) => unknown, input: T): number {
  const started = performance.now();
  for (let i = 0; i < parses; i += 1) work(input);
  return ((performance.now() - started) * 1000) / parses;
}

/** Median microseconds of `plain` and `exact` on `input`, alternating which goes first. */
function sideBySide<T>(plain: (input: T) => unknown, exact: (input: T) => unknown, input: T): [number, number] {
  // Warm both up, so neither is measured while it compiles.
  microsecondsPer(plain, input);
  microsecondsPer(exact, input);
  const times: [number[], number[]] = [[], []];
  for (let round = 0; round < rounds; round += 1) {
    if (round % 2 === 0) {
      times[0].push(microsecondsPer(plain, input));
      times[1].push(microsecondsPer(exact, input));
    } else {
      times[1].push(microsecondsPer(exact, input));
      times[0].push(microsecondsPer(plain, input));
    }
  }
  return [median(times[0]), median(times[1])];
}

const row = (label: string, size: string, [plain, exact]: [number, number]) => [
  label,
  size,
  plain.toFixed(0),
  exact.toFixed(0),
  `${(exact / plain).toFixed(2)}×`,
];

const reads: string[][] = [];
const writes: string[][] = [];
for (const wide of [false, true]) {
  const label = wide ? 'ids past 2^53' : 'ids a double holds';
  const text = page(wide);
  const size = `${(text.length / 1024).toFixed(0)} KiB`;
  reads.push(row(label, size, sideBySide(JSON.parse, parseExactJson, text)));
  // The records as a write body holds them: marked where an id is carried as its digits.
  const records = (parseExactJson(text) as Array<Record<string, unknown>>).map((record) =>
    typeof record.id === 'string' ? { ...record, id: new JsonNumberText(record.id) } : record,
  );
  writes.push(row(label, size, sideBySide(JSON.stringify, stringifyJson, records)));
}
console.log(`\nA page of 500 records, ${parses} parses or writes per round, medians of ${rounds} rounds\n`);
console.log(table(['page', 'size', 'JSON.parse µs', 'parseExactJson µs', 'exact / JSON.parse'], reads));
console.log('');
console.log(table(['records', 'size', 'JSON.stringify µs', 'stringifyJson µs', 'exact / JSON.stringify'], writes));
