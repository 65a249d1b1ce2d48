/**
 * compose.yaml and the Kubernetes manifests of examples/kubernetes say what the image runs; no
 * engine runs them here, so what they say is checked against the command they run: each command
 * is one `syncline` has and each flag one it takes (its --help lists it), each SYNCLINE_* variable
 * one docs/operations.md documents, every probe asks /healthz or /readyz on a port the container
 * serves — the worker's the one its --http-port opens — and the secrets files the settings name
 * are mounted.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../../support/cli-process.js';
import { page, repoRoot } from '../../support/doc-examples.js';

/** Manifests are walked as the YAML they are. */
type Node = any;

const documentedSettings = new Set([...page('docs/operations.md').matchAll(/`(SYNCLINE_[A-Z_]+)`/g)].map((match) => match[1]!));
const helpOf = new Map<string, string>();

async function checkCommand(where: string, args: readonly string[]): Promise<void> {
  const [command, ...rest] = args;
  assert.ok(command !== undefined, `${where}: a command`);
  if (!helpOf.has(command)) {
    const help = await runCli([command, '--help']);
    assert.equal(help.code, 0, `${where}: syncline ${command} is a command: ${help.stderr}`);
    helpOf.set(command, help.stdout);
  }
  for (const flag of rest.filter((arg) => arg.startsWith('--'))) {
    assert.ok(helpOf.get(command)!.includes(flag), `${where}: syncline ${command} takes ${flag}`);
  }
}

function checkSettings(where: string, names: readonly string[]): void {
  for (const name of names.filter((candidate) => candidate.startsWith('SYNCLINE_'))) {
    assert.ok(documentedSettings.has(name), `${where}: ${name} is a setting docs/operations.md documents`);
  }
}

const flagValue = (args: readonly string[], flag: string): string | undefined =>
  args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined;

test('compose.yaml runs commands and settings syncline has, the workers probed on the port they open', async () => {
  const compose = parseAllDocuments(readFileSync(join(repoRoot, 'compose.yaml'), 'utf8'), { merge: true })[0]!.toJS({
    maxAliasCount: -1,
  }) as Node;
  const secrets = Object.keys(compose.secrets);
  const syncline = Object.entries(compose.services as Record<string, Node>).filter(([, service]) => service.image?.startsWith('syncline'));
  assert.deepEqual(syncline.map(([name]) => name).sort(), ['api', 'migrate', 'worker']);
  for (const [name, service] of syncline) {
    assert.equal(service.read_only, true, `${name} runs on a read-only root file system`);
    assert.ok(service.volumes.includes('./definitions:/definitions:ro'), `${name} mounts the definitions read-only`);
    await checkCommand(`compose ${name}`, service.command);
    checkSettings(`compose ${name}`, Object.keys(service.environment));
    for (const [setting, path] of Object.entries(service.environment as Record<string, string>)) {
      if (setting.endsWith('_FILE')) assert.ok(service.secrets.includes(path.replace('/run/secrets/', '')), `${name}: ${path} is mounted`);
    }
    for (const secret of service.secrets) assert.ok(secrets.includes(secret), `${name}: secret ${secret} is declared`);
  }
  const worker = compose.services.worker;
  const port = flagValue(worker.command, '--http-port');
  assert.ok(worker.healthcheck.test.join(' ').includes(`127.0.0.1:${port}/healthz`), 'the worker is probed where --http-port listens');
  assert.deepEqual(compose.services.api.command, ['serve', '--no-daemon']);
  assert.equal(compose.services.api.depends_on.migrate.condition, 'service_completed_successfully');
});

test('the Kubernetes manifests run commands and settings syncline has, probed on ports their containers serve', async () => {
  const dir = join(repoRoot, 'examples', 'kubernetes');
  const kinds: string[] = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.yaml'))) {
    for (const document of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      assert.ok(!Array.isArray(document) && document.errors.length === 0, `${file} parses`);
      const manifest = document.toJS() as Node;
      kinds.push(`${manifest.kind}/${manifest.metadata.name}`);
      const pod = manifest.spec?.template?.spec;
      if (pod === undefined) continue;
      assert.equal(pod.securityContext.runAsNonRoot, true, `${file}: runs as a non-root user`);
      for (const container of pod.containers as Node[]) {
        const where = `${file} ${container.name}`;
        await checkCommand(where, container.args);
        checkSettings(
          where,
          (container.env ?? []).map((variable: Node) => variable.name),
        );
        assert.equal(container.securityContext.readOnlyRootFilesystem, true, `${where}: read-only root file system`);
        const ports = new Map<string, number>((container.ports ?? []).map((port: Node) => [port.name, port.containerPort]));
        for (const probe of [container.readinessProbe, container.livenessProbe].filter(Boolean)) {
          assert.ok(['/healthz', '/readyz'].includes(probe.httpGet.path), `${where}: probes /healthz or /readyz`);
          assert.ok(ports.has(probe.httpGet.port), `${where}: probes a port it declares`);
        }
        const httpPort = flagValue(container.args, '--http-port');
        if (httpPort !== undefined)
          assert.equal(ports.get('probes'), Number(httpPort), `${where}: the probe port is the one --http-port opens`);
      }
    }
  }
  assert.deepEqual(kinds.sort(), [
    'Deployment/syncline-api',
    'Deployment/syncline-worker',
    'Job/syncline-migrate',
    'Secret/syncline-secrets',
    'Service/syncline-api',
  ]);
});
