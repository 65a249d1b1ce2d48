/**
 * The operator console's built files (dist/console, made by bin/build.js from console/) at
 * /console. No token is needed to fetch them: they hold no data and no secret; every call the
 * page makes for data carries the signed-in token.
 *
 * The files are read once, when the app is made: the set is fixed by the build, so a request is
 * a lookup in a map and no path from a request ever reaches the file system (no traversal to
 * guard against). Paths that name no file are routes of the page itself (/console/queue/…) and
 * answer index.html, so a reload or a bookmark opens the same page; only under /console/assets/,
 * where every name is a file, does an unknown name answer 404.
 *
 * Every answer carries a strict Content-Security-Policy: scripts, styles and requests of this
 * origin only, no inline script or style (the build emits none), no framing.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { Middleware } from 'koa';
import { HttpProblem } from '../errors.js';

export const consolePath = '/console';

export const consoleSecurityHeaders: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
});

/** Hashed file names change with their content, so browsers may keep them for good. */
const immutable = 'public, max-age=31536000, immutable';

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

function readAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const body = readFileSync(path);
        const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
        assets.set(`/${relative(dir, path).split(sep).join('/')}`, { body, type: extname(path), etag });
      }
    }
  };
  walk(dir);
  return assets;
}

/** Serves `dir` (the built console) at /console; without a build, /console says how to make one. */
export function consoleAssets(dir: string): Middleware {
  const assets = existsSync(join(dir, 'index.html')) ? readAssets(dir) : undefined;
  return async (ctx, next) => {
    const { path } = ctx;
    if (path !== consolePath && !path.startsWith(`${consolePath}/`)) return next();
    ctx.set(consoleSecurityHeaders);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new HttpProblem('method-not-allowed', `${path} does not answer ${ctx.method}; it answers GET, HEAD.`, {
        headers: { Allow: 'GET, HEAD' },
      });
    }
    if (!assets) throw new HttpProblem('unknown-route', 'The console is not built in this installation: run `npm run build`.');
    const name = path.slice(consolePath.length) || '/';
    const file = assets.get(name);
    if (!file && name.startsWith('/assets/')) throw new HttpProblem('unknown-route', `The console has no file ${path}.`);
    const asset = file ?? assets.get('/index.html')!;
    // index.html names the current hashed files: it is checked with the server on every load.
    ctx.set('Cache-Control', file && name.startsWith('/assets/') ? immutable : 'no-cache');
    ctx.type = asset.type;
    ctx.etag = asset.etag;
    // Koa's freshness check looks at a 2xx status only.
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = asset.body;
  };
}
