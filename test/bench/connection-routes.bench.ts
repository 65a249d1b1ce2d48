/**
 * Connection route throughput: POST /api/RunConnectionGetDataMin/crm/Customer answering 20 records
 * (with their typed addresses) from the quickstart's SQLite file, next to a bare Koa route that
 * answers the same 20 records from memory. Goal: at least 0.4× the bare route's requests/s.
 *
 * Both servers run in one child process (the runtime as `serve` builds it, its pino log going to
 * standard output, which is /dev/null here); autocannon runs in this process, so the load generator
 * never takes the servers' CPU. Both get identical settings — connections, pipelining, duration,
 * method, headers and body — and every answer is checked byte for byte against the same expected
 * body. Rounds alternate between the two servers after a warm-up of each.
 *
 * Run alone with `npx tsx test/bench/connection-routes.bench.ts`, or with all benchmarks by
 * `npm run bench`. BENCH_HTTP_SECONDS (per round, default 4), BENCH_HTTP_ROUNDS (default 3) and
 * BENCH_HTTP_CONNECTIONS (default 10) change the load.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import Koa from 'koa';
import Router from '@koa/router';
import { createLogger } from '../../runtime/log.js';
import { quickstartApp, tokens } from '../support/http-app.js';
import { checked, load, type LoadResult } from './http-load.js';
import { ms, table } from './stats.js';

const seconds = Number(process.env.BENCH_HTTP_SECONDS ?? 4);
const rounds = Number(process.env.BENCH_HTTP_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 10);
const pipelining = 1;
const warmupSeconds = 2;
const recordCount = 20;
const goalRatio = 0.4;

/** What the child process reports once both servers listen. */
interface Servers {
  syncline: string;
  bare: string;
  /** The answer both must give, byte for byte. */
  body: string;
}

/** The same request for both servers; only the path differs. */
const request = {
  method: 'POST',
  headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json', accept: 'application/json' },
  body: '[]',
};

// ---------------------------------------------------------------- child: the two servers

async function serveBoth(): Promise<void> {
  const app = await quickstartApp({ log: createLogger('info') });
  const next = await app.crm('customers').max({ id: 'id' }).first();
  let id = Number(next?.id ?? 0);
  while (id < recordCount) {
    id += 1;
    await app.crm('customers').insert({ id, name: `Customer ${id}`, email: `customer${id}@example.com`, active: id % 3 === 0 ? 0 : 1 });
    await app
      .crm('customer_addresses')
      .insert({ customer_id: id, type: 'main', street: `${id} Main Street`, city: 'Springfield', zip: String(10000 + id), country: 'US' });
    if (id % 2 === 0)
      await app
        .crm('customer_addresses')
        .insert({ customer_id: id, type: 'invoice', street: `PO Box ${id}`, city: 'Shelbyville', zip: null, country: 'US' });
  }
  const first = await app.call(request.method, '/api/RunConnectionGetDataMin/crm/Customer', {
    raw: request.body,
    headers: request.headers,
    token: null,
  });
  if (first.status !== 200 || (first.json as unknown[]).length !== recordCount)
    throw new Error(`unexpected answer: ${first.status} ${first.text.slice(0, 200)}`);
  const records = first.json as unknown[];

  const bare = new Koa();
  const router = new Router();
  router.post('/records', (ctx) => {
    ctx.body = records;
  });
  bare.use(router.routes());
  const bareServer = bare.listen(0, '127.0.0.1');
  await once(bareServer, 'listening');

  const servers: Servers = {
    syncline: `${app.base}/api/RunConnectionGetDataMin/crm/Customer`,
    bare: `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/records`,
    body: first.text,
  };
  process.send!(servers);
  process.once('disconnect', () => {
    bareServer.close();
    bareServer.closeAllConnections();
    void app.close().then(() => process.exit(0));
  });
}

// ---------------------------------------------------------------- parent: the load

export async function run(): Promise<void> {
  const child: ChildProcess = fork(import.meta.filename, ['--serve'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const [servers] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`the server process exited with ${String(code)}`))),
    ])) as [Servers];
    const targets = [
      { name: 'RunConnectionGetDataMin (Syncline, SQLite)', url: servers.syncline },
      { name: 'bare Koa route (memory)', url: servers.bare },
    ];
    console.log(
      `\nPOST, ${recordCount} records (${(Buffer.byteLength(servers.body) / 1024).toFixed(1)} KiB of JSON) per answer; autocannon: ${connections} connections, ` +
        `pipelining ${pipelining}, ${rounds} alternating rounds of ${seconds} s per server after a ${warmupSeconds} s warm-up each; servers in one child process`,
    );
    for (const target of targets)
      checked(`${target.name} (warm-up)`, await load(target.url, warmupSeconds, request, { connections, pipelining }, servers.body));
    const results = new Map<string, LoadResult[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < rounds; round += 1) {
      for (const target of round % 2 === 0 ? targets : [...targets].reverse())
        results
          .get(target.name)!
          .push(checked(target.name, await load(target.url, seconds, request, { connections, pipelining }, servers.body)));
    }

    const summary = targets.map((target) => {
      const list = results.get(target.name)!;
      const total = list.reduce((sum, r) => sum + r.requests.total, 0);
      const duration = list.reduce((sum, r) => sum + r.duration, 0);
      return {
        name: target.name,
        perSecond: total / duration,
        p50: Math.max(...list.map((r) => r.latency.p50)),
        p99: Math.max(...list.map((r) => r.latency.p99)),
        total,
      };
    });
    const [syncline, bare] = summary as [(typeof summary)[number], (typeof summary)[number]];
    const ratio = syncline.perSecond / bare.perSecond;
    console.log(
      '\n' +
        table(
          ['route', 'requests/s', 'p50', 'p99', 'requests'],
          summary.map((s) => [s.name, s.perSecond.toFixed(0), ms(s.p50), ms(s.p99), String(s.total)]),
        ),
    );
    const perRound = results
      .get(syncline.name)!
      .map((r, index) =>
        (
          r.requests.total /
          r.duration /
          (results.get(bare.name)![index]!.requests.total / results.get(bare.name)![index]!.duration)
        ).toFixed(2),
      );
    console.log(
      `\nratio Syncline / bare: ${ratio.toFixed(2)}× (goal ≥ ${goalRatio}×: ${ratio >= goalRatio ? 'met' : 'NOT met'}); by round: ${perRound.join(', ')}; p50 and p99 are the worst round's`,
    );
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      if (child.connected) child.disconnect();
      else child.kill();
      await exited;
    }
  }
}

if (process.argv.includes('--serve')) await serveBoth();
else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
