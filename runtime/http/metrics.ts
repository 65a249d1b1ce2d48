/**
 * Prometheus metrics of HTTP requests, added to the process's registry (metrics/runtime-metrics.ts):
 * requests by route and status, and a latency histogram. Routes are labelled by their pattern
 * (`/api/RunConnectionGetData/:system/:object`), never by the raw path, so the number of series
 * stays bounded whatever callers send. And the route that serves the registry, /metrics.
 */
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { Counter, Histogram, type Registry } from 'prom-client';
import { finalStatus } from './problem-middleware.js';
import { consolePath } from './console-assets.js';

/** Counts and times every request; register it once per registry. */
export function httpMetrics(registry: Registry): Middleware {
  const requests = new Counter({
    name: 'syncline_http_requests_total',
    help: 'HTTP requests by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'syncline_http_request_duration_seconds',
    help: 'HTTP request duration by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const middleware: Middleware = async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const count = (status: number) => {
        const route = routeLabel(ctx);
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        requests.inc({ method: ctx.method, route, status: String(status) });
        latency.observe({ method: ctx.method, route }, seconds);
      };
      // A streamed answer is counted once sent (problem-middleware.ts).
      const status = finalStatus(ctx);
      if (typeof status === 'number') count(status);
      else void status.then(count);
    }
  };
  return middleware;
}

/** GET /metrics: the registry in Prometheus' text format. It needs no token (metric-labels.ts keeps secrets out of it). */
export function metricsRoute(router: Router, registry: Registry): void {
  router.get('/metrics', async (ctx) => {
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
}

interface MatchedLayer {
  path: string | RegExp;
  methods: string[];
}

/**
 * The pattern of the route the path matched: of the route for the method, else (405) of any route
 * of the path. Not `_matchedRoute`: the router overwrites it with the path of each `use()` layer
 * it passes, so a request refused by authentication would be labelled with the prefix pattern.
 */
export function routeLabel(ctx: Context): string {
  const matched = ((ctx as Context & { matched?: MatchedLayer[] }).matched ?? []).filter((layer) => layer.methods.length > 0);
  const route = [...matched].reverse().find((layer) => layer.methods.includes(ctx.method)) ?? matched.at(-1);
  if (route) return String(route.path);
  // The console's files are served beside the router: one label for all of them, not one per asset.
  return ctx.path === consolePath || ctx.path.startsWith(`${consolePath}/`) ? consolePath : 'unmatched';
}
