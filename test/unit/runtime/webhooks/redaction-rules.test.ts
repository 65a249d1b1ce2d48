/**
 * The redaction rules on their own (no database): which names are credentials, where a secret or
 * a token kept only as its SHA-256 is found inside a text, and how a value is walked.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { isSecretName } from '../../../../runtime/webhooks/log/secret-names.js';
import { SecretValues } from '../../../../runtime/webhooks/log/secret-values.js';
import { redactValue, webhookRedaction } from '../../../../runtime/webhooks/log/redact.js';
import type { WebhookDefinition } from '../../../../definitions/types.js';

const none: ReadonlySet<string> = new Set();
const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

describe('credential names', () => {
  test('names that carry credentials, in any case and with the usual separators', () => {
    const secret = [
      'secret',
      'client_secret',
      'clientSecret',
      'CLIENT-SECRET',
      'service_webhooksecret',
      'token',
      'access_token',
      'accessToken',
      'hub.verify_token',
      'X-Auth-Token',
      'password',
      'Password',
      'new_password',
      'passwd',
      'pwd',
      'passphrase',
      'api_key',
      'api-key',
      'apiKey',
      'APIKey',
      'apikey',
      'X-API-Key',
      'authorization',
      'Proxy-Authorization',
      'auth',
      'X-Forward-Auth',
      'authCode',
      'basic_auth',
      'signature',
      'Stripe-Signature',
      'x-hub-signature-256',
      'cookie',
      'Set-Cookie',
      'session',
      'session_id',
      'sessionId',
      'SessionID',
      'credential',
      'credentials',
      'private_key',
      'privateKey',
      'private-key',
      'aws_access_key_id',
      'jwt',
    ];
    for (const name of secret) assert.equal(isSecretName(name, none), true, name);
  });

  test('names that do not', () => {
    for (const name of [
      'name',
      'email',
      'author',
      'authority',
      'sessions_count',
      'key',
      'id',
      'customer_key',
      'keyboard',
      'passport',
      'content-type',
      'user-agent',
    ]) {
      assert.equal(isSecretName(name, none), false, name);
    }
  });

  test('names a webhook adds, compared without case', () => {
    assert.equal(isSecretName('IBAN', new Set(['iban'])), true);
    assert.equal(isSecretName('iban_country', new Set(['iban'])), false, 'an added name matches whole');
  });
});

describe('credential values', () => {
  const token = 'tok_9f8a7b6c5d4e3f2a1b0c';
  const base64 = 'c2VjcmV0LXRva2VuLXdpdGgtcGFkZGluZw==';
  const values = new SecretValues(['hook-secret'], [digest(token), digest(base64)]);

  test('a secret held as text is found anywhere, also inside a word', () => {
    assert.equal(values.redact('xhook-secretx and hook-secret'), 'x[redacted]x and [redacted]');
  });

  test('a token kept as its digest is found alone and between the usual separators', () => {
    for (const [text, expected] of [
      [token, '[redacted]'],
      [`Bearer ${token}`, 'Bearer [redacted]'],
      [`https://x.example/cb?token=${token}&next=1`, 'https://x.example/cb?token=[redacted]&next=1'],
      [`{"t":"${token}"}`, '{"t":"[redacted]"}'],
      [`key-${token}.v2`, 'key-[redacted].v2'],
      [`Basic ${base64}`, 'Basic [redacted]'],
      [`${base64}/more`, '[redacted]/more'],
    ]) {
      assert.equal(values.redact(text!), expected, text);
    }
  });

  test('percent escapes and + cut words; a token or secret that is itself encoded is found encoded', () => {
    const encodable = new SecretValues(['hook secret/7Q+x'], [digest(token), digest(base64)]);
    for (const [text, expected] of [
      [`x=%3D${token}`, 'x=%3D[redacted]'],
      [`a%20${token}%26b`, 'a%20[redacted]%26b'],
      [`a+${token}`, 'a+[redacted]'],
      [`%41${token}`, '%41[redacted]'],
      [`t=${encodeURIComponent(base64)}&n=1`, 't=[redacted]&n=1'],
      [`t=${base64.replace(/=/g, '%3d')}`, 't=[redacted]'],
      [`s=${encodeURIComponent('hook secret/7Q+x')}`, 's=[redacted]'],
      ['s=hook+secret%2f7Q%2Bx!', 's=[redacted]!'],
    ]) {
      assert.equal(encodable.redact(text!), expected, text);
    }
    for (const text of ['a%20word%20and%20more%3Dwords_that_are_long', 'plain+words+only', '100%25 sure'])
      assert.equal(encodable.redact(text), text);
  });

  test('a token glued to letters is no word; nothing else is touched', () => {
    assert.equal(values.redact(`x${token}`), `x${token}`);
    assert.equal(values.redact('tok_9f8a7b6c5d4e3f2a1b0'), 'tok_9f8a7b6c5d4e3f2a1b0', 'a near miss stays');
    assert.equal(values.finds('nothing here'), false);
  });
});

describe('walking a value', () => {
  const definition = { id: 'wh_rules', secret: 'zq-hook-value-99', logRedact: ['IBAN'] } as unknown as WebhookDefinition;
  const redaction = webhookRedaction(definition, 'x-acme-signature', []);

  test('names at any depth, values inside strings, numbers and names; each place noted once', () => {
    const noted: string[] = [];
    const value = {
      a: [{ password: { deep: true } }, 'zq-hook-value-99'],
      iban: 'DE00',
      n: 1,
      'x-acme-signature': 's',
      'k-zq-hook-value-99': 'v',
      ['__proto__']: 'p',
    };
    const out = redactValue(value, redaction, 'data', noted) as Record<string, unknown>;
    assert.deepEqual(JSON.parse(JSON.stringify(out)), {
      a: [{ password: '[redacted]' }, '[redacted]'],
      iban: '[redacted]',
      n: 1,
      'x-acme-signature': '[redacted]',
      'k-[redacted]': 'v',
      ['__proto__']: 'p',
    });
    assert.equal(Object.getPrototypeOf(out), Object.prototype, '__proto__ stays a plain property');
    assert.deepEqual(noted, ['data.a[0].password', 'data.a[1]', 'data.iban', 'data.x-acme-signature', 'data.k-[redacted]']);
    assert.deepEqual(value.a[0], { password: { deep: true } }, 'the value itself is left as it was');
  });

  test('nesting too deep to walk is a RangeError (the call log keeps a note instead), not a stack overflow', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 50_000; i++) deep = [deep];
    assert.throws(() => redactValue(deep, redaction, 'data', []), { name: 'RangeError', message: /nested deeper than 200 levels/ });
  });
});
