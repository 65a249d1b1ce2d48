/**
 * Runtime settings: flags first, then environment variables, then defaults — the defaults live
 * here and nowhere else.
 */
export interface ServeSettings {
  definitions: string;
  port: number;
  host: string;
}

export const defaults: Readonly<ServeSettings> = Object.freeze({
  definitions: 'examples/quickstart',
  port: 3000,
  host: '127.0.0.1',
});

export class SettingsError extends Error {}

export function serveSettings(
  flags: { definitions?: string; port?: string; host?: string },
  env: Readonly<Record<string, string | undefined>> = process.env,
): ServeSettings {
  const port = flags.port ?? env.SYNCLINE_PORT;
  return {
    definitions: flags.definitions ?? env.SYNCLINE_DEFINITIONS ?? defaults.definitions,
    port: port === undefined ? defaults.port : parsePort(port, flags.port !== undefined ? '--port' : 'SYNCLINE_PORT'),
    host: flags.host ?? env.SYNCLINE_HOST ?? defaults.host,
  };
}

function parsePort(text: string, source: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new SettingsError(`${source} must be a port number from 0 to 65535, not '${text}'`);
  return port;
}
