/**
 * Shell completion through the real command: `syncline completion SHELL` prints a
 * script, `syncline __complete` answers quietly, and the bash script completes for real in bash
 * (COMP_WORDS and COMP_CWORD set as bash sets them on Tab, `syncline` on PATH running the sources).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { projectRoot, runCli } from '../../../support/cli-process.js';

const quickstart = join(projectRoot, 'examples', 'quickstart');
const warnings = join(projectRoot, 'test/fixtures/invalid/warnings-first-only-save-without-write-mapping');
const scratch = mkdtempSync(join(tmpdir(), 'syncline-completion-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('syncline completion and __complete', { concurrency: true }, () => {
  test('completion prints each shell its script; an unknown shell exits 2', async () => {
    const [bash, zsh, fish, tcsh] = await Promise.all(['bash', 'zsh', 'fish', 'tcsh'].map((shell) => runCli(['completion', shell])));
    assert.equal(bash!.code, 0, bash!.stderr);
    assert.match(bash!.stdout, /^complete -o filenames -F _syncline_complete syncline$/m);
    assert.match(zsh!.stdout, /^#compdef syncline\n/);
    assert.match(fish!.stdout, /^complete -c syncline -f -a '\(__syncline_complete\)'$/m);
    assert.equal(tcsh!.code, 2);
    assert.match(tcsh!.stderr, /Allowed choices are bash, zsh, fish/);
  });

  test('__complete answers one candidate a line, ids from SYNCLINE_DEFINITIONS or --definitions', async () => {
    const [ids, fromLine, options] = await Promise.all([
      runCli(['__complete', '--', 'discover', ''], { env: { SYNCLINE_DEFINITIONS: quickstart } }),
      runCli(['__complete', '--', 'run', '--definitions', warnings, '']),
      runCli(['__complete', '--', 'validate', '--']),
    ]);
    assert.equal(ids.stdout, 'crm\nerp\n');
    assert.equal(fromLine.stdout, 'crm-to-erp\n');
    assert.equal(options.stdout, '--format\n--strict\n--help\n');
    for (const run of [ids, fromLine, options]) {
      assert.equal(run.code, 0);
      assert.equal(run.stderr, '');
    }
  });

  test('broken or missing definitions: no candidate, nothing on standard error, exit 0', async () => {
    const broken = join(scratch, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'syncs.yaml'), 'kind: Sync\nid: [\n');
    const runs = await Promise.all([
      runCli(['__complete', '--', 'run', ''], { env: { SYNCLINE_DEFINITIONS: broken } }),
      runCli(['__complete', '--', 'run', '--definitions', join(scratch, 'nothing-here'), '']),
    ]);
    for (const run of runs) assert.deepEqual(run, { code: 0, stdout: '', stderr: '' });
  });
});

const hasBash = spawnSync('bash', ['--version']).status === 0;

// `syncline` on PATH for the shells: the sources, as the tests run them everywhere.
const bin = join(scratch, 'bin');
mkdirSync(bin, { recursive: true });
writeFileSync(join(bin, 'syncline'), `#!/bin/sh\nexec "${process.execPath}" "${join(projectRoot, 'bin', 'syncline-dev.js')}" "$@"\n`);
chmodSync(join(bin, 'syncline'), 0o755);

describe('the bash completion script in bash', { skip: hasBash ? false : 'bash is not installed', concurrency: true }, () => {
  const script = join(scratch, 'syncline.bash');
  writeFileSync(
    script,
    execFileSync(process.execPath, [join(projectRoot, 'bin', 'syncline-dev.js'), 'completion', 'bash'], { encoding: 'utf8' }),
  );

  /** COMPREPLY after Tab with `words` typed (the last the word under the cursor). */
  function tab(words: string[], cwd = projectRoot): string[] {
    const quoted = words.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
    const program = `source '${script}'; COMP_WORDS=(syncline ${quoted}); COMP_CWORD=${words.length}; _syncline_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program], {
      cwd,
      encoding: 'utf8',
      env: { PATH: `${bin}:${process.env.PATH}`, SYNCLINE_DEFINITIONS: quickstart, HOME: scratch },
    });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stderr, '');
    return result.stdout.split('\n').filter((line) => line !== '');
  }

  test('commands, options and their values', () => {
    assert.deepEqual(tab(['va']), ['validate']);
    assert.deepEqual(tab(['validate', '--form']), ['--format']);
    assert.deepEqual(tab(['validate', '--format', 's']), ['sarif']);
    assert.deepEqual(tab(['completion', '']).sort(), ['bash', 'fish', 'zsh']);
  });

  test('ids of the definitions', () => {
    assert.deepEqual(tab(['run', '']), ['crm-customers-to-erp']);
    assert.deepEqual(tab(['webhook', 'test', 'wh_']), ['wh_crmCustomerChanged01']);
    assert.deepEqual(tab(['discover', '--definitions', warnings, '']), ['crm', 'erp']);
    assert.deepEqual(tab(['run', '--definitions', warnings, '']), ['crm-to-erp']);
  });

  test('file names where a path goes', () => {
    const dir = join(scratch, 'paths');
    mkdirSync(join(dir, 'definitions'), { recursive: true });
    assert.deepEqual(tab(['validate', 'def'], dir), ['definitions']);
  });
});

/** A shell that is installed, or why the test is skipped. */
const installed = (shell: string) => (spawnSync(shell, ['--version']).status === 0 ? false : `${shell} is not installed`);

/** Runs `program` in `shell` with the sources as `syncline` on PATH and the quickstart as definitions. */
function inShell(shell: string, args: string[], program: string): string[] {
  const result = spawnSync(shell, [...args, program], {
    cwd: projectRoot,
    encoding: 'utf8',
    env: { PATH: `${bin}:${process.env.PATH}`, SYNCLINE_DEFINITIONS: quickstart, HOME: scratch },
  });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.split('\n').filter((line) => line !== '');
}

describe('the zsh completion script in zsh', { skip: installed('zsh') }, () => {
  test('installed into $fpath, compinit binds it; it offers ids and choices', () => {
    const functions = join(scratch, 'zsh-functions');
    mkdirSync(functions, { recursive: true });
    writeFileSync(
      join(functions, '_syncline'),
      execFileSync(process.execPath, [join(projectRoot, 'bin', 'syncline-dev.js'), 'completion', 'zsh'], { encoding: 'utf8' }),
    );
    // Outside a real Tab, compadd and _files are stand-ins that print what they are given.
    const program = [
      `fpath=('${functions}' $fpath); autoload -Uz compinit; compinit -u -d '${join(scratch, 'zcompdump')}'`,
      'print -r -- "bound: ${_comps[syncline]}"',
      'compadd() { shift; print -rl -- "$@"; }; _files() { print -r -- FILES; }',
      'words=(syncline run ""); CURRENT=3; _syncline',
      'words=(syncline validate --format j); CURRENT=4; _syncline',
      'words=(syncline validate ex); CURRENT=3; _syncline',
    ].join('\n');
    assert.deepEqual(inShell('zsh', ['-f', '-c'], program), ['bound: _syncline', 'crm-customers-to-erp', 'json', 'junit', 'FILES']);
  });
});

describe('the fish completion script in fish', { skip: installed('fish') }, () => {
  test('complete -C answers what Tab would offer', () => {
    const script = join(scratch, 'syncline.fish');
    writeFileSync(
      script,
      execFileSync(process.execPath, [join(projectRoot, 'bin', 'syncline-dev.js'), 'completion', 'fish'], { encoding: 'utf8' }),
    );
    const program = `source '${script}'; complete -C'syncline ru'; complete -C'syncline discover '; complete -C'syncline validate --format s'; complete -C'syncline validate exam'`;
    assert.deepEqual(inShell('fish', ['--no-config', '-c'], program), ['run', 'crm', 'erp', 'sarif', 'examples/']);
  });
});
