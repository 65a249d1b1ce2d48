/**
 * Verifies a webhook's `signature` setting over the raw body with its profile. Answers why it
 * failed, or undefined when the signature holds. The endpoint answers a failure with 401.
 */
import { parseDuration } from '../../../definitions/duration.js';
import type { WebhookDefinition } from '../../../definitions/types.js';
import type { WebhookRequest } from '../webhook-call.js';
import { githubHeader, verifyGithub } from './github.js';
import type { SignatureFailure } from './signed-parts.js';
import { stripeHeader, verifyStripe } from './stripe.js';
import { verifyHmac } from './hmac.js';
import { slackHeaders, verifyV0, zoomHeaders } from './v0-signature.js';

export type { SignatureFailure } from './signed-parts.js';

type Settings = NonNullable<WebhookDefinition['signature']>;

/** The schema's default tolerance, for a definition built without defaults (tests, console). */
const defaultToleranceMs = 5 * 60_000;

export function verifySignature(settings: Settings, request: WebhookRequest, nowMs = Date.now()): SignatureFailure | undefined {
  const toleranceMs = parseDuration(settings.tolerance ?? '') ?? defaultToleranceMs;
  switch (settings.profile) {
    case 'github':
      return verifyGithub(settings.secret, request);
    case 'stripe':
      return verifyStripe(settings.secret, request, toleranceMs, nowMs);
    case 'slack':
      return verifyV0(slackHeaders, settings.secret, request, toleranceMs, nowMs);
    case 'zoom':
      return verifyV0(zoomHeaders, settings.secret, request, toleranceMs, nowMs);
    case 'hmac':
      return verifyHmac(settings, request, toleranceMs, nowMs);
  }
}

/** The header a profile reads its signature from (lower-case), for the log's redaction. */
export function signatureHeaderOf(settings: Settings): string | undefined {
  switch (settings.profile) {
    case 'github':
      return githubHeader;
    case 'stripe':
      return stripeHeader;
    case 'slack':
      return slackHeaders.signature;
    case 'zoom':
      return zoomHeaders.signature;
    case 'hmac':
      return settings.header?.toLowerCase();
  }
}
