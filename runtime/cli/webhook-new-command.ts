/**
 * `syncline webhook new` — prints (or appends to a file) a Webhook definition with an unguessable
 * id: 128 random bits, URL-safe. The id is part of the webhook's URL, so it must not be guessable
 * even where no secret is set.
 */
import { randomBytes } from 'node:crypto';
import { appendFile, readFile } from 'node:fs/promises';
import { readKindSchema } from '../../definitions/schema/kind-schemas.js';

export interface WebhookNewOptions {
  name?: string;
  sync?: string;
  out?: string;
}

/** `wh_` and 22 base62 characters (≈131 bits). */
export function newWebhookId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let id = '';
  // Rejection sampling keeps every character equally likely (256 is not a multiple of 62).
  while (id.length < 22) {
    for (const byte of randomBytes(32)) if (byte < 248 && id.length < 22) id += alphabet[byte % 62];
  }
  return `wh_${id}`;
}

/** Whether `text` is a definition id, by the definition schema's own rule (common.schema.json). */
function isDefinitionId(text: string): boolean {
  const { pattern, maxLength } = (readKindSchema('common').$defs as { id: { pattern: string; maxLength: number } }).id;
  return text.length <= maxLength && new RegExp(pattern).test(text);
}

export async function webhookNewCommand(options: WebhookNewOptions): Promise<number> {
  // Written into the YAML as given: an id that is not one could carry lines of its own.
  if (options.sync !== undefined && !isDefinitionId(options.sync)) {
    process.stderr.write(
      `error: --sync ${JSON.stringify(options.sync)} is not a sync id: ids are letters, digits, '_', '.' and '-', starting with a letter or digit\n`,
    );
    return 2;
  }
  if (options.name !== undefined && options.name.trim() === '') {
    process.stderr.write('error: --name must not be empty: it is the label the console shows\n');
    return 2;
  }
  const id = newWebhookId();
  const secretVariable = `WEBHOOK_${id.slice(3, 11).toUpperCase()}_SECRET`;
  const document = [
    'kind: Webhook',
    `id: ${id}`,
    `name: ${JSON.stringify(options.name ?? 'New webhook')}`,
    'active: true',
    `secret: \${env:${secretVariable}}`,
    'action: startSync',
    `sync: ${options.sync ?? 'CHANGE-ME'}   # the sync to start`,
    '',
  ].join('\n');
  if (!options.out) {
    process.stdout.write(document);
    return 0;
  }
  const existing = await readFile(options.out, 'utf8').catch(() => '');
  const separator = existing === '' ? '' : existing.endsWith('\n') ? '---\n' : '\n---\n';
  try {
    await appendFile(options.out, separator + document);
  } catch (error) {
    process.stderr.write(`error: cannot write ${options.out}: ${(error as Error).message}\n`);
    return 1;
  }
  process.stderr.write(`added Webhook ${id} to ${options.out}; its secret comes from ${secretVariable}\n`);
  return 0;
}
