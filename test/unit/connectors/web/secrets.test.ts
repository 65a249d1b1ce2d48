/**
 * What is taken out of an upstream body before it is kept for the log: each configured secret in
 * the forms a server may echo it (as is, percent-encoded, form-encoded), and the latest tokens.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Secrets } from '../../../../connectors/web/secrets.js';

test('configured secrets are redacted as is and encoded', () => {
  const secrets = new Secrets();
  secrets.add('p@ss word/1', undefined, 'abc');
  assert.equal(
    secrets.redact('raw p@ss word/1, url p%40ss%20word%2F1, form p%40ss+word%2F1, short abc'),
    'raw [redacted], url [redacted], form [redacted], short abc',
  );
});

test('a longer secret holding a shorter one is redacted whole', () => {
  const secrets = new Secrets();
  secrets.add('token', 'Basic dG9rZW4=');
  secrets.add('dG9rZW4=');
  assert.equal(secrets.redact('Authorization: Basic dG9rZW4= token'), 'Authorization: [redacted] [redacted]');
});

test('the latest access tokens are redacted, the oldest forgotten', () => {
  const secrets = new Secrets();
  for (let i = 1; i <= 5; i += 1) secrets.addToken(`access-${i}`);
  assert.equal(secrets.redact('access-1 access-2 access-5'), 'access-1 [redacted] [redacted]');
});
