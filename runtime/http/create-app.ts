/** The Koa application: composed middleware and routers; it knows no connector by name. */
import Koa from 'koa';
import Router from '@koa/router';
import type { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import type { Logger } from '../log.js';
import { healthRoutes } from './health-routes.js';

export function createApp(holder: SnapshotHolder, log: Logger): Koa {
  const app = new Koa();
  // Route matching is case-insensitive, as installations of the service differ in spelling.
  const router = new Router({ sensitive: false });
  healthRoutes(router, holder);
  app.on('error', (error: Error) => log.error({ err: error }, 'request failed'));
  app.use(router.routes()).use(router.allowedMethods());
  return app;
}
