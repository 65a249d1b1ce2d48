/**
 * Semantic checks of ApiClients: exactly one of token and tokenSha256, a token that comes from the
 * environment or a file (never plain text in git), and allow-lists naming real systems and syncs.
 */
import { createHash } from 'node:crypto';
import { locate } from '../load/source-document.js';
import type { ApiClientDefinition } from '../types.js';
import type { CheckContext, Registered } from './check-context.js';

/** The token's SHA-256, or undefined when the definition has problems. */
export function checkApiClient(context: CheckContext, { definition, source }: Registered<ApiClientDefinition>): Buffer | undefined {
  const before = context.errors;
  let hash: Buffer | undefined;
  if ((definition.token === undefined) === (definition.tokenSha256 === undefined)) {
    context.report(source, [], 'token', 'give exactly one of token (from ${env:NAME}) and tokenSha256');
  } else if (definition.token !== undefined) {
    const node = locate(source, ['token']).node;
    if (node && !source.substituted.has(node)) {
      context.report(
        source,
        ['token'],
        'token-plain-text',
        'token is written in plain text; read it with ${env:NAME} or ${file:path}, or give tokenSha256 instead',
      );
    }
    hash = createHash('sha256').update(definition.token, 'utf8').digest();
  } else {
    hash = Buffer.from(definition.tokenSha256!, 'hex');
  }
  for (const [index, id] of (definition.systems ?? []).entries()) context.resolve('System', id, source, ['systems', index]);
  for (const [index, id] of (definition.syncs ?? []).entries()) context.resolve('Sync', id, source, ['syncs', index]);
  return context.errors === before ? hash : undefined;
}
