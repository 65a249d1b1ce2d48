/**
 * Signing a body as a webhook's network would, for the console's test and replay: they stand in
 * for the sender (the operator holding the `console` scope is trusted with the webhook's
 * configuration), so a webhook that checks signatures can be tested at all. Each profile mirrors
 * its verifier in this folder, with a fresh timestamp where the profile signs one.
 */
import type { WebhookDefinition } from '../../../definitions/types.js';
import { githubHeader } from './github.js';
import { hmac } from './signed-parts.js';
import { stripeHeader } from './stripe.js';
import { slackHeaders, zoomHeaders } from './v0-signature.js';

type Settings = NonNullable<WebhookDefinition['signature']>;

/** The headers that sign `rawBody` under `settings`, lower-case names. */
export function signatureHeaders(settings: Settings, rawBody: Buffer, nowMs = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  switch (settings.profile) {
    case 'github':
      return { [githubHeader]: `sha256=${hmac('sha256', settings.secret, [rawBody]).toString('hex')}` };
    case 'stripe':
      return { [stripeHeader]: `t=${timestamp},v1=${hmac('sha256', settings.secret, [`${timestamp}.`, rawBody]).toString('hex')}` };
    case 'slack':
    case 'zoom': {
      const headers = settings.profile === 'slack' ? slackHeaders : zoomHeaders;
      return {
        [headers.timestamp]: timestamp,
        [headers.signature]: `v0=${hmac('sha256', settings.secret, [`v0:${timestamp}:`, rawBody]).toString('hex')}`,
      };
    }
    case 'hmac': {
      const parts: Array<string | Buffer> = settings.timestampHeader === undefined ? [rawBody] : [`${timestamp}.`, rawBody];
      const signature = hmac(settings.algorithm, settings.secret, parts).toString(settings.encoding);
      return {
        [(settings.header ?? '').toLowerCase()]: `${settings.prefix ?? ''}${signature}`,
        ...(settings.timestampHeader === undefined ? {} : { [settings.timestampHeader.toLowerCase()]: timestamp }),
      };
    }
  }
}
