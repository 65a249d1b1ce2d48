/**
 * The six connection endpoints of the service ("direct system access"): read with metadata, read
 * data only, one record, free query, full write and minimal write. Callers choose the system and
 * object in the URL and never see the system's native API.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ObjectDescription, QueryResult, RecordData, WriteRequest } from '../../connectors/connection.js';
import { ConnectorError } from '../../connectors/connector-error.js';
import { HttpProblem } from '../errors.js';
import { requestSignal, sendRecords } from './json-response.js';
import { parseQueryBody } from './query-body.js';
import { parseReadParameters } from './read-parameters.js';
import { readJsonBody } from '../request/read-body.js';
import { parseKey } from '../sync/record-key.js';
import type { ConnectionProvider } from '../../connectors/connection-pool.js';
import { requireCapabilities } from './require-capability.js';
import { resolveObject, resolveSystem } from './resolve-target.js';
import { parseFullWrite, parseMinimalWrite } from './write-body.js';

export interface ConnectionRouteOptions {
  connections: ConnectionProvider;
  bodyLimit: number;
}

export function connectionRoutes(router: Router, { connections, bodyLimit }: ConnectionRouteOptions): void {
  const optionalBody = async (ctx: Context) =>
    ctx.request.length || ctx.get('transfer-encoding') ? readJsonBody(ctx, bodyLimit) : undefined;

  router.post('/RunConnectionGetData/:system/:object', async (ctx) => {
    const target = await resolveSystem(ctx, connections, ctx.params.system!, 'systems:read');
    const object = resolveObject(target, ctx.params.object!);
    const parameters = parseReadParameters(await optionalBody(ctx), object, target.system, { total: true });
    // Stopped with the request, and also when one of the read and the count fails: the answer is
    // then the failure, and the other would go on without anyone waiting (against a system that
    // pages on and on, for ever).
    const bothDone = new AbortController();
    const signal = AbortSignal.any([requestSignal(ctx), bothDone.signal]);
    const read = async () => {
      const records: RecordData[] = [];
      for await (const page of target.connection.read(object.name, { ...parameters, signal })) records.push(...page);
      return records;
    };
    // The total counts every matching record, not just this page (GETDATA_LIMIT/SKIP). Without the
    // count capability no page was allowed, so the records read are all there are.
    const counted = !parameters.id && target.system.capabilities.count;
    const [records, total] = await Promise.all([
      read(),
      counted ? target.connection.count(object.name, { filter: parameters.filter, signal }) : undefined,
    ]).catch((error: unknown) => {
      bothDone.abort(error);
      throw error;
    });
    ctx.body = { ...metadata(target.system.definition.id, object), total: total ?? records.length, records };
  });

  router.post('/RunConnectionGetDataMin/:system/:object', async (ctx) => {
    const target = await resolveSystem(ctx, connections, ctx.params.system!, 'systems:read');
    const object = resolveObject(target, ctx.params.object!);
    const parameters = parseReadParameters(await optionalBody(ctx), object, target.system, { total: false });
    await sendRecords(ctx, target.connection.read(object.name, { ...parameters, signal: requestSignal(ctx) }));
  });

  router.get('/GetDataObject/:system/:object/:key', async (ctx) => {
    const target = await resolveSystem(ctx, connections, ctx.params.system!, 'systems:read');
    const object = resolveObject(target, ctx.params.object!);
    const id = parseKey(object, ctx.params.key!, 'path.object_key');
    // A key names at most one record; the limit only spares a connector that can take it a look for more.
    for await (const page of target.connection.read(object.name, { id, ...(target.system.capabilities.limit ? { limit: 1 } : {}) })) {
      if (page[0]) {
        ctx.body = { ...metadata(target.system.definition.id, object), record: page[0] };
        return;
      }
    }
    throw new HttpProblem('record-not-found', `${target.system.definition.id}/${object.name} has no record with ${describeKey(id)}.`);
  });

  router.post('/RunConnectionGetQueryData/:system', async (ctx) => {
    const target = await resolveSystem(ctx, connections, ctx.params.system!, 'systems:query');
    const body = parseQueryBody(await readJsonBody(ctx, bodyLimit));
    requireCapabilities(target.system, [
      // Without it a statement could write: the route's promise of a read-only query would be the caller's to keep.
      {
        capability: 'readOnlyQuery',
        asked: 'a free query',
        path: '/Statement',
        fix: 'read the objects of the system with RunConnectionGetData instead',
      },
      ...(body.limit === undefined ? [] : [{ capability: 'limit' as const, asked: 'Limit', path: '/Limit' }]),
      ...(body.skip === undefined ? [] : [{ capability: 'skip' as const, asked: 'Skip', path: '/Skip' }]),
    ]);
    let result: QueryResult;
    try {
      result = await target.connection.query({ ...body, signal: requestSignal(ctx) });
    } catch (error) {
      // The connector names the limit; how to page is this route's to say — unless one row is too large, which no page mends.
      if (error instanceof ConnectorError && error.code === 'too-large' && error.details?.oneRow !== true) {
        throw new HttpProblem(
          'result-too-large',
          `${error.message}. Here, page with "Limit" and "Skip" in the body ({"Limit": 1000, "Skip": 0}, then "Skip": 1000, …) and an ORDER BY in the statement, so that pages neither overlap nor miss rows.`,
          { cause: error },
        );
      }
      throw error;
    }
    ctx.body = {
      columns: body.columns.map((c) => ({ Name: c.name, ColumnType: c.type })),
      records: result.rows,
      ...(result.total !== undefined ? { total: result.total } : {}),
    };
  });

  const writeRoute = (path: string, parse: (body: unknown, object: ObjectDescription) => WriteRequest) =>
    router.post(path, async (ctx) => {
      const target = await resolveSystem(ctx, connections, ctx.params.system!, 'systems:write');
      const object = resolveObject(target, ctx.params.object!);
      const request = parse(await readJsonBody(ctx, bodyLimit), object);
      if (request.groups !== undefined)
        requireCapabilities(target.system, [{ capability: 'typedGroups', asked: 'a typed group column', path: '/columns' }]);
      const result = await target.connection.write(object.name, request);
      ctx.status = result.action === 'created' ? 201 : 200;
      ctx.body = result;
    });
  writeRoute('/RunConnectionSetData/:system/:object', parseFullWrite);
  writeRoute('/RunConnectionSetDataMin/:system/:object', parseMinimalWrite);
}

function metadata(system: string, object: ObjectDescription) {
  return { system, object: object.name, key: object.key, fields: object.fields, groups: object.groups };
}

function describeKey(id: Record<string, unknown>): string {
  return Object.entries(id)
    .map(([field, value]) => `${field} = ${JSON.stringify(value)}`)
    .join(' and ');
}
