/**
 * What reading JSON without rounding costs (connectors/records/exact-json.ts): a page of 500
 * records as a REST API answers it, parsed by JSON.parse and by parseExactJson side by side in one
 * process — once with ids a double holds (the common case: one regular expression over the text
 * more) and once with 64-bit ids past 2^53 (the text is scanned and parsed again with those
 * numbers quoted). Rounds alternate which parser goes first.
 *
 * `npx tsx test/bench/exact-json.bench.ts`, or `npm run bench exact-json`. BENCH_JSON_ROUNDS
 * (default 5), BENCH_JSON_PARSES (parses per round and parser, default 2000).
 */
import { parseExactJson } from '../../connectors/records/exact-json.js';
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

function microsecondsPerParse(parse: (text: string) => unknown, text: string): number {
  const started = performance.now();
  for (let i = 0; i < parses; i += 1) parse(text);
  return ((performance.now() - started) * 1000) / parses;
}

const rows: string[][] = [];
for (const wide of [false, true]) {
  const text = page(wide);
  // Warm both up, so neither is measured while it compiles.
  microsecondsPerParse(JSON.parse, text);
  microsecondsPerParse(parseExactJson, text);
  const plain: number[] = [];
  const exact: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    if (round % 2 === 0) {
      plain.push(microsecondsPerParse(JSON.parse, text));
      exact.push(microsecondsPerParse(parseExactJson, text));
    } else {
      exact.push(microsecondsPerParse(parseExactJson, text));
      plain.push(microsecondsPerParse(JSON.parse, text));
    }
  }
  const [plainMedian, exactMedian] = [median(plain), median(exact)];
  rows.push([
    wide ? 'ids past 2^53' : 'ids a double holds',
    `${(text.length / 1024).toFixed(0)} KiB`,
    plainMedian.toFixed(0),
    exactMedian.toFixed(0),
    `${(exactMedian / plainMedian).toFixed(2)}×`,
  ]);
}
console.log(`\nA page of 500 records, ${parses} parses per round, medians of ${rounds} rounds\n`);
console.log(table(['page', 'size', 'JSON.parse µs', 'parseExactJson µs', 'exact / JSON.parse'], rows));
