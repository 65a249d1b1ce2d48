/**
 * A small HTTP proxy in front of the CAP service of a test, on 127.0.0.1: it records the requests
 * the connector sends (method and path, to count lookups and `$batch` requests) and can run a hook
 * before forwarding one — another writer changing the record between the connector's lookup and
 * its write, the way a race happens in production — and can change an answer on its way back (a
 * `$batch` answer garbled after the service did the work). Everything else goes to the service
 * unchanged.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  /** Path and query, as sent. */
  url: string;
  body: string;
}

export interface RecordingProxy {
  /** The service root through the proxy. */
  url: string;
  requests: Recorded[];
  /** Runs before a request is forwarded; may change the service in between. */
  before: ((request: Recorded) => Promise<void> | void) | undefined;
  /** Changes the body of the service's answer to a request before the connector gets it. */
  rewrite: ((request: Recorded, body: string) => string) | undefined;
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A proxy of `serviceUrl` (a CAP service root). */
export async function startRecordingProxy(serviceUrl: string): Promise<RecordingProxy> {
  const target = new URL(serviceUrl);
  const proxy: RecordingProxy = { url: '', requests: [], before: undefined, rewrite: undefined, close: async () => {} };
  const server = createServer(async (request, response) => {
    const recorded: Recorded = { method: request.method ?? 'GET', url: request.url ?? '/', body: await bodyOf(request) };
    proxy.requests.push(recorded);
    try {
      await proxy.before?.(recorded);
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) headers.set(name, value);
      }
      const answer = await fetch(new URL(recorded.url, target.origin), {
        method: recorded.method,
        headers,
        ...(recorded.body === '' ? {} : { body: recorded.body }),
      });
      const received = Buffer.from(await answer.arrayBuffer());
      const text = proxy.rewrite === undefined ? received : Buffer.from(proxy.rewrite(recorded, received.toString('utf8')));
      const sent: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) sent[name] = value;
      });
      response.writeHead(answer.status, sent).end(text);
    } catch (error) {
      response.writeHead(502).end(String(error));
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  proxy.url = `http://127.0.0.1:${port}${target.pathname}`;
  proxy.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}
