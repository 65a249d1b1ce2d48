/**
 * Webhook throughput, each next to a bare Koa route under the same load:
 *
 * - start sync: POST /api/webhooks/<id> with a JSON body checked against the request schema and
 *   the secret header; each call enqueues an ad-hoc queue item and writes a log entry — on SQLite,
 *   and on PostgreSQL when its server answers (SYNCLINE_TEST_POSTGRES_URL, as the tests use).
 *   Goal on SQLite: at least 0.3× the bare route's requests/s. The bare route parses the same
 *   body and answers a queue-item-shaped JSON from memory.
 * - read with system: the same kind of call reading one customer (search `id = #id#`, first
 *   record only, read mapping, response schema) from the quickstart's SQLite file. Goal: 0.3×.
 *   The bare route answers the same record from memory, byte for byte.
 *
 * As connection-routes.bench.ts: the servers of one comparison run in one child process (their
 * pino log to /dev/null); autocannon runs here with identical settings for both sides; rounds
 * alternate after a warm-up. Answers are checked: every read body byte for byte; every start
 * must answer 200, and afterwards the child counts one queue item and one log entry per start.
 *
 * Run alone with `npx tsx test/bench/webhooks.bench.ts`, or with all benchmarks by
 * `npm run bench`. BENCH_HTTP_SECONDS, BENCH_HTTP_ROUNDS and BENCH_HTTP_CONNECTIONS as there.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import Koa from 'koa';
import Router from '@koa/router';
import { createLogger } from '../../runtime/log.js';
import { flushCallLog } from '../../runtime/webhooks/log/call-log-writer.js';
import { databaseTargets, type TestDatabase } from '../support/databases.js';
import { engineApp, quickstartApp, type HttpApp } from '../support/http-app.js';
import { checked, load, type LoadResult } from './http-load.js';
import { ms, table } from './stats.js';

const seconds = Number(process.env.BENCH_HTTP_SECONDS ?? 4);
const rounds = Number(process.env.BENCH_HTTP_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 10);
const pipelining = 1;
const warmupSeconds = 2;
const goalRatio = 0.3;

const secret = 'bench-webhook-secret-0123456789';
const startId = 'wh_benchStartSync000001';
const readId = 'wh_benchReadSystem00001';
const benchWebhooks = `kind: Webhook
id: ${startId}
active: true
secret: ${secret}
action: startSync
sync: crm-customers-to-erp
requestSchema: { type: object, required: [id], properties: { id: { type: integer }, event: { type: string } } }
---
kind: Webhook
id: ${readId}
active: true
secret: ${secret}
action: readWithSystem
system: crm
object: Customer
search: "id = #id#"
firstOnly: true
requestSchema: { type: object, required: [id], properties: { id: { type: integer } } }
responseSchema: { type: object, properties: { id: { type: integer }, name: { type: string }, email: { type: [string, "null"] } } }
readMapping: '{ "id": id, "name": name, "email": email }'
`;

/** The same request for every server of a comparison; only the URL differs. */
const request = {
  method: 'POST',
  headers: { service_webhooksecret: secret, 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify({ id: 3, event: 'customer.updated' }),
};

type Kind = 'start' | 'read';
interface Servers {
  webhook: string;
  bare: string;
  /** The read answer both must give, byte for byte; absent for starts (ids and times differ). */
  body?: string;
}
type Engine = 'sqlite' | 'postgres';

// ---------------------------------------------------------------- child: the servers

async function serve(kind: Kind, engine: Engine): Promise<void> {
  const log = createLogger('info');
  let database: TestDatabase | undefined;
  let app: HttpApp;
  if (engine === 'postgres') {
    const target = (await databaseTargets()).find((t) => t.engine === 'postgres');
    if (!target || target.unavailable) throw new Error(`PostgreSQL unavailable: ${target?.unavailable ?? 'not selected'}`);
    database = await target.create();
    app = await engineApp(database, { log, files: { 'bench-webhooks.yaml': benchWebhooks } });
  } else {
    app = await quickstartApp({ log, files: { 'bench-webhooks.yaml': benchWebhooks } });
  }
  const path = `/api/webhooks/${kind === 'start' ? startId : readId}`;
  const first = await app.call(request.method, path, { raw: request.body, headers: request.headers, token: null });
  if (first.status !== 200) throw new Error(`unexpected answer of ${path}: ${first.status} ${first.text.slice(0, 300)}`);
  const answer = first.json as Record<string, unknown>;

  const bare = new Koa();
  const router = new Router();
  router.post('/bare', async (ctx) => {
    // The same work a handler cannot avoid: read and parse the body.
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) chunks.push(chunk);
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    ctx.body = kind === 'start' ? { ...answer, CreatedDate: new Date().toISOString() } : answer;
  });
  bare.use(router.routes());
  const bareServer = bare.listen(0, '127.0.0.1');
  await once(bareServer, 'listening');
  const servers: Servers = {
    webhook: `${app.base}${path}`,
    bare: `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/bare`,
    ...(kind === 'read' ? { body: first.text } : {}),
  };
  process.send!(servers);
  process.on('message', (message) => {
    if (message !== 'count') return;
    // Log entries are written behind the answers (call-log-writer.ts): count them once written.
    void (async () => {
      await flushCallLog(app.db);
      const [items, entries] = await Promise.all([
        app.db.knex('queue_items').count({ n: '*' }).first(),
        app.db.knex('webhook_log').where({ webhook_id: startId }).count({ n: '*' }).first(),
      ]);
      process.send!({ items: Number(items?.n ?? 0), entries: Number(entries?.n ?? 0) });
    })();
  });
  process.once('disconnect', () => {
    bareServer.close();
    bareServer.closeAllConnections();
    void app.close().then(async () => {
      await database?.drop();
      process.exit(0);
    });
  });
}

// ---------------------------------------------------------------- parent: the load

async function compare(kind: Kind, engine: Engine, label: string): Promise<void> {
  const child: ChildProcess = fork(import.meta.filename, ['--serve', kind, engine], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const [servers] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`the server process exited with ${String(code)}`))),
    ])) as [Servers];
    const targets = [
      { name: label, url: servers.webhook },
      { name: 'bare Koa route (memory)', url: servers.bare },
    ];
    let starts = 1;
    let webhookRuns = 0;
    const run = async (name: string, url: string, duration: number) => {
      const result = checked(name, await load(url, duration, request, { connections, pipelining }, servers.body));
      if (url === servers.webhook) {
        starts += result.requests.total;
        webhookRuns += 1;
      }
      return result;
    };
    for (const target of targets) await run(`${target.name} (warm-up)`, target.url, warmupSeconds);
    const results = new Map<string, LoadResult[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < rounds; round += 1) {
      for (const target of round % 2 === 0 ? targets : [...targets].reverse())
        results.get(target.name)!.push(await run(target.name, target.url, seconds));
    }
    if (kind === 'start') {
      child.send('count');
      const [counts] = (await once(child, 'message')) as [{ items: number; entries: number }];
      // autocannon does not count the requests still in flight when a run ends (at most one per connection).
      const most = starts + connections * webhookRuns;
      if (counts.items !== counts.entries || counts.items < starts || counts.items > most) {
        throw new Error(
          `${label}: ${starts} starts answered 200 (${most} at most were sent), but ${counts.items} queue items and ${counts.entries} log entries exist`,
        );
      }
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
    const [webhook, bare] = summary as [(typeof summary)[number], (typeof summary)[number]];
    const ratio = webhook.perSecond / bare.perSecond;
    console.log(
      `\n${table(
        ['route', 'requests/s', 'p50', 'p99', 'requests'],
        summary.map((s) => [s.name, s.perSecond.toFixed(0), ms(s.p50), ms(s.p99), String(s.total)]),
      )}`,
    );
    const goal =
      kind === 'start' && engine === 'postgres' ? 'no goal set' : `goal ≥ ${goalRatio}×: ${ratio >= goalRatio ? 'met' : 'NOT met'}`;
    console.log(
      `ratio webhook / bare: ${ratio.toFixed(2)}× (${goal})${kind === 'start' ? `; one queue item and one log entry per start checked` : '; every body checked'}`,
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

export async function run(): Promise<void> {
  console.log(
    `\nPOST ${request.body} with the secret header; autocannon: ${connections} connections, pipelining ${pipelining}, ${rounds} alternating rounds of ${seconds} s after a ${warmupSeconds} s warm-up each`,
  );
  await compare('start', 'sqlite', 'start sync webhook (enqueue, SQLite)');
  const postgres = (await databaseTargets()).find((t) => t.engine === 'postgres');
  if (postgres && !postgres.unavailable) await compare('start', 'postgres', 'start sync webhook (enqueue, PostgreSQL)');
  else console.log(`\nstart sync on PostgreSQL skipped: ${postgres?.unavailable ?? 'not selected'}`);
  await compare('read', 'sqlite', 'read with system webhook (SQLite)');
}

if (process.argv.includes('--serve')) {
  const at = process.argv.indexOf('--serve');
  await serve(process.argv[at + 1] as Kind, process.argv[at + 2] as Engine);
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
