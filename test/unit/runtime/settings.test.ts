/** The settings this runtime adds for the cluster: the daemon heartbeat and the worker's probe address. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { probeSettings, queueSettings, SettingsError } from '../../../runtime/settings.js';

test('the daemon heartbeat: 10 s by default, a duration or milliseconds, at least 100 ms', () => {
  assert.equal(queueSettings({}, {}).heartbeatMs, 10_000);
  assert.equal(queueSettings({}, { SYNCLINE_DAEMON_HEARTBEAT: '2s' }).heartbeatMs, 2000);
  assert.equal(queueSettings({}, { SYNCLINE_DAEMON_HEARTBEAT: '500' }).heartbeatMs, 500);
  assert.throws(() => queueSettings({}, { SYNCLINE_DAEMON_HEARTBEAT: '10ms' }), /SYNCLINE_DAEMON_HEARTBEAT must be at least 100ms/);
  assert.throws(() => queueSettings({}, { SYNCLINE_DAEMON_HEARTBEAT: 'often' }), SettingsError);
});

test('the prefetch: four times the concurrency by default, a whole number from 0 otherwise', () => {
  assert.equal(queueSettings({}, {}).prefetch, 16);
  assert.equal(queueSettings({ concurrency: '10' }, {}).prefetch, 40);
  assert.equal(queueSettings({ concurrency: '1000' }, {}).prefetch, 1000);
  assert.equal(queueSettings({}, { SYNCLINE_CONCURRENCY: '6', SYNCLINE_PREFETCH: '0' }).prefetch, 0);
  assert.equal(queueSettings({}, { SYNCLINE_PREFETCH: '25' }).prefetch, 25);
  assert.throws(() => queueSettings({}, { SYNCLINE_PREFETCH: '-1' }), /SYNCLINE_PREFETCH must be a whole number from 0 to 1000/);
  assert.throws(() => queueSettings({}, { SYNCLINE_PREFETCH: 'many' }), SettingsError);
});

test('probes listen only when a port is given; the host defaults like serve', () => {
  assert.equal(probeSettings({}, {}), undefined);
  assert.equal(probeSettings({}, { SYNCLINE_HOST: '0.0.0.0', SYNCLINE_DAEMON_HTTP_HOST: '0.0.0.0' }), undefined);
  assert.deepEqual(probeSettings({ httpPort: '9464' }, {}), { port: 9464, host: '127.0.0.1' });
  assert.deepEqual(probeSettings({}, { SYNCLINE_DAEMON_HTTP_PORT: '0' }), { port: 0, host: '127.0.0.1' });
  assert.deepEqual(probeSettings({ httpPort: '9464' }, { SYNCLINE_HOST: '0.0.0.0' }), { port: 9464, host: '0.0.0.0' });
  assert.deepEqual(probeSettings({ httpPort: '9464' }, { SYNCLINE_HOST: '0.0.0.0', SYNCLINE_DAEMON_HTTP_HOST: '10.0.0.5' }), {
    port: 9464,
    host: '10.0.0.5',
  });
  assert.deepEqual(probeSettings({ httpPort: '1', httpHost: '::1' }, { SYNCLINE_DAEMON_HTTP_HOST: '10.0.0.5' }), { port: 1, host: '::1' });
});

test('a bad port names its source; a host without a port is refused', () => {
  assert.throws(() => probeSettings({ httpPort: '70000' }, {}), /--http-port must be a port number from 0 to 65535, not '70000'/);
  assert.throws(() => probeSettings({}, { SYNCLINE_DAEMON_HTTP_PORT: 'http' }), /SYNCLINE_DAEMON_HTTP_PORT must be a port number/);
  assert.throws(() => probeSettings({ httpHost: '0.0.0.0' }, {}), /--http-host needs --http-port/);
});
