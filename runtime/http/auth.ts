/**
 * Bearer-token authentication and scope checks. Tokens are compared as SHA-256 digests with
 * timingSafeEqual against every client (no early exit), so the time taken says nothing about which
 * client, or how much of a token, matched.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Snapshot } from '../../definitions/snapshot.js';
import type { ApiScope } from '../../definitions/types.js';
import { HttpProblem } from '../errors.js';

export interface Principal {
  /** ApiClient id, or `admin` for the admin token. */
  id: string;
  scopes: ReadonlySet<ApiScope>;
  /** Allow-lists; undefined means all. */
  systems?: ReadonlySet<string>;
  syncs?: ReadonlySet<string>;
}

export const allScopes: readonly ApiScope[] = Object.freeze([
  'queue:read',
  'queue:write',
  'systems:read',
  'systems:write',
  'systems:query',
  'console',
]);

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export function findPrincipal(snapshot: Snapshot, adminTokenHash: Buffer, header: string | undefined): Principal | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  if (!match) return undefined;
  const presented = sha256(match[1]!);
  let found: Principal | undefined;
  if (timingSafeEqual(presented, adminTokenHash)) found = { id: 'admin', scopes: new Set(allScopes) };
  for (const client of snapshot.apiClients.values()) {
    if (timingSafeEqual(presented, client.tokenHash) && !found) {
      const d = client.definition;
      found = {
        id: d.id,
        scopes: new Set(d.scopes),
        systems: d.systems ? new Set(d.systems) : undefined,
        syncs: d.syncs ? new Set(d.syncs) : undefined,
      };
    }
  }
  return found;
}

/**
 * Why a request is not authenticated, without echoing any of its header: none sent, another scheme
 * than Bearer (Basic credentials, a bare token), or a bearer token no client has.
 */
function unauthenticatedDetail(header: string): string {
  if (header === '') return 'Send Authorization: Bearer <token>.';
  if (!/^Bearer(?:[ \t]|$)/i.test(header.trim()))
    return 'The Authorization header is not of the form Bearer <token> (another scheme, or a token without it); send Authorization: Bearer <token>.';
  return 'The bearer token is not valid.';
}

/** 401 unless the request carries a known bearer token; sets `ctx.state.principal`. */
export function authenticate(snapshotOf: (ctx: Context) => Snapshot, adminTokenHash: Buffer): Middleware {
  return async (ctx, next) => {
    const principal = findPrincipal(snapshotOf(ctx), adminTokenHash, ctx.get('authorization') || undefined);
    if (!principal) {
      const detail = unauthenticatedDetail(ctx.get('authorization'));
      throw new HttpProblem('unauthenticated', detail, { headers: { 'WWW-Authenticate': 'Bearer realm="syncline"' } });
    }
    ctx.state.principal = principal;
    await next();
  };
}

export function requireScope(ctx: Context, scope: ApiScope): Principal {
  const principal = ctx.state.principal as Principal | undefined;
  // Fails closed should a route ever be reached without `authenticate` having run.
  if (!principal)
    throw new HttpProblem('unauthenticated', 'Send Authorization: Bearer <token>.', {
      headers: { 'WWW-Authenticate': 'Bearer realm="syncline"' },
    });
  if (!principal.scopes.has(scope)) {
    throw new HttpProblem(
      'missing-scope',
      `This call needs the scope ${scope}; client ${principal.id} has ${[...principal.scopes].join(', ') || 'none'}.`,
    );
  }
  return principal;
}

export function requireSystem(principal: Principal, systemId: string): void {
  if (principal.systems && !principal.systems.has(systemId)) {
    throw new HttpProblem('not-allowed', `Client ${principal.id} may not access system ${systemId}.`);
  }
}

export function requireSync(principal: Principal, syncId: string): void {
  if (principal.syncs && !principal.syncs.has(syncId)) {
    throw new HttpProblem('not-allowed', `Client ${principal.id} may not use sync ${syncId}.`);
  }
}
