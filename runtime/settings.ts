/**
 * Runtime settings: flags first, then environment variables, then defaults — the defaults live
 * here and nowhere else.
 */
export interface ServeSettings {
  definitions: string;
  port: number;
  host: string;
  /** Largest request body, in bytes. */
  bodyLimit: number;
}

export interface ServeFlags {
  definitions?: string;
  port?: string;
  host?: string;
  bodyLimit?: string;
}

export const defaults: Readonly<ServeSettings> = Object.freeze({
  definitions: 'examples/quickstart',
  port: 3000,
  host: '127.0.0.1',
  bodyLimit: 1024 * 1024,
});

export class SettingsError extends Error {}

export function serveSettings(flags: ServeFlags, env: Readonly<Record<string, string | undefined>> = process.env): ServeSettings {
  const port = flags.port ?? env.SYNCLINE_PORT;
  const bodyLimit = flags.bodyLimit ?? env.SYNCLINE_BODY_LIMIT;
  return {
    definitions: flags.definitions ?? env.SYNCLINE_DEFINITIONS ?? defaults.definitions,
    port: port === undefined ? defaults.port : parsePort(port, flags.port !== undefined ? '--port' : 'SYNCLINE_PORT'),
    host: flags.host ?? env.SYNCLINE_HOST ?? defaults.host,
    bodyLimit: bodyLimit === undefined ? defaults.bodyLimit : parseSize(bodyLimit, flags.bodyLimit !== undefined ? '--body-limit' : 'SYNCLINE_BODY_LIMIT'),
  };
}

const sizeUnits: Record<string, number> = { '': 1, b: 1, kb: 1000, mb: 1000 ** 2, kib: 1024, mib: 1024 ** 2 };

/** `1048576`, `512kb`, `1MiB`, `2mb`. */
function parseSize(text: string, source: string): number {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(text.trim());
  const unit = match ? sizeUnits[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined || Number(match[1]) === 0) {
    throw new SettingsError(`${source} must be a size such as 1048576, 512kb or 1mib, not '${text}'`);
  }
  return Number(match[1]) * unit;
}

function parsePort(text: string, source: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new SettingsError(`${source} must be a port number from 0 to 65535, not '${text}'`);
  return port;
}
