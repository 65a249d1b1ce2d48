/**
 * `syncline webhook test ID (--data FILE | --pin LOG_ID)` — calls a webhook for real through the
 * console's test API of a running server (POST /api/console/webhooks/ID/test, scope console) and
 * prints what was sent, the ticker as it arrives, and the status and body received.
 *
 * Exit codes: 0 when the webhook answered 2xx, 1 when it answered otherwise or the server refused
 * the test (unknown webhook, token without the console scope, an unpinned entry), 2 for unusable
 * arguments (neither or both of --data and --pin, no token, a data file that is not JSON).
 */
import { readFile } from 'node:fs/promises';
import { readEventStream } from './read-event-stream.js';

export interface WebhookTestOptions {
  data?: string;
  pin?: string;
  url?: string;
  token?: string;
}

interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

const defaultUrl = 'http://127.0.0.1:3000';

export async function webhookTestCommand(webhookId: string, options: WebhookTestOptions, io: Output = standardOutput): Promise<number> {
  const usage = (message: string) => {
    io.err(`error: ${message}\n`);
    return 2;
  };
  if ((options.data === undefined) === (options.pin === undefined)) return usage('give either --data FILE or --pin LOG_ID');
  const token = options.token ?? process.env.SYNCLINE_TOKEN ?? process.env.SYNCLINE_ADMIN_TOKEN;
  if (!token) return usage('no token: pass --token or set SYNCLINE_TOKEN (a client with the console scope) or SYNCLINE_ADMIN_TOKEN');
  const base = (options.url ?? process.env.SYNCLINE_URL ?? defaultUrl).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(base)) return usage(`--url must be an http:// or https:// address, not ${base}`);

  let body: unknown;
  if (options.data !== undefined) {
    let text: string;
    try {
      text = options.data === '-' ? await readStandardInput() : await readFile(options.data, 'utf8');
    } catch (error) {
      return usage(`cannot read ${options.data}: ${(error as Error).message}`);
    }
    try {
      body = { data: JSON.parse(text) as unknown };
    } catch (error) {
      return usage(`${options.data} is not JSON: ${(error as Error).message}`);
    }
  } else body = { pin: options.pin };

  const url = `${base}/api/console/webhooks/${encodeURIComponent(webhookId)}/test`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    io.err(
      `error: cannot reach ${base}: ${cause?.code ?? cause?.message ?? (error as Error).message}; is \`syncline serve\` running there?\n`,
    );
    return 1;
  }
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await response.text();
    let detail = text;
    try {
      detail = String((JSON.parse(text) as { detail?: unknown }).detail ?? text);
    } catch {
      // Not a problem body; shown as it came.
    }
    io.err(`error: the server refused the test (${response.status}): ${detail}\n`);
    return 1;
  }

  let received: { status: number; headers: Record<string, string>; body: string; logEntryId?: string } | undefined;
  for await (const event of readEventStream(response.body ?? emptyStream())) {
    const data = JSON.parse(event.data) as Record<string, unknown>;
    if (event.event === 'sent') {
      io.out(
        `sent: ${String(data.method)} ${base}${String(data.url)}${data.pin === undefined ? '' : ` (pinned entry ${String(data.pin)})`}\n`,
      );
      io.out(`${indent(JSON.stringify(data.data, null, 2) ?? '')}\n`);
      io.out('ticker:\n');
    } else if (event.event === 'ticker') {
      const time = String(data.at).slice(11, 23);
      const details = data.data === undefined ? '' : `  ${JSON.stringify(data.data)}`;
      io.out(`  ${time}  ${String(data.kind).padEnd(9)} ${String(data.message)}${details}\n`);
    } else if (event.event === 'response') {
      received = data as typeof received;
      // The console's stream goes on with the run the call queued; this command reports the call
      // only, and must not wait for a run that no daemon may ever pick up.
      break;
    } else if (event.event === 'error') {
      io.err(`error: ${String(data.message)}\n`);
    }
  }
  if (!received) {
    io.err("error: the stream ended without the webhook's response\n");
    return 1;
  }
  io.out(`received: ${received.status}${received.headers['content-type'] ? ` (${received.headers['content-type']})` : ''}\n`);
  if (received.headers.location) io.out(`  location: ${received.headers.location}\n`);
  if (received.body !== '') io.out(`${indent(pretty(received.body))}\n`);
  if (received.logEntryId) io.out(`log entry: ${received.logEntryId}\n`);
  return received.status >= 200 && received.status < 300 ? 0 : 1;
}

const standardOutput: Output = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}

async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function* emptyStream(): AsyncGenerator<Uint8Array> {}
