/**
 * Completion answers from the real commander program: every command and option of the command
 * line is offered (so completion cannot drift from it), fixed values come from the options'
 * choices, and ids from the definitions named on the line or by default — none when they cannot
 * be read.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { completeWords, idValues } from '../../../../runtime/cli/completion/complete-words.js';
import { synclineProgram } from '../../../../runtime/cli/main.js';

const program = synclineProgram(() => {});
const quickstart = fileURLToPath(new URL('../../../../examples/quickstart', import.meta.url));
const warnings = fileURLToPath(new URL('../../../fixtures/invalid/warnings-first-only-save-without-write-mapping', import.meta.url));
const complete = (words: string[], definitions = quickstart) => completeWords(program, words, { definitions });

/** Every command with the words that reach it: [], ['validate'], ['webhook', 'new'] … */
function commands(command: Command, path: string[] = []): Array<{ command: Command; path: string[] }> {
  return [{ command, path }, ...command.commands.flatMap((sub) => commands(sub, [...path, sub.name()]))];
}
const hidden = (command: Command) => (command as unknown as { _hidden: boolean })._hidden;

test('the commands at the top and under webhook are those of the program, the hidden one not among them', async () => {
  const top = await complete(['']);
  assert.deepEqual(top.candidates, [...program.commands.filter((c) => !hidden(c)).map((c) => c.name()), 'help']);
  assert.ok(!top.candidates.includes('__complete'));
  assert.ok(top.candidates.includes('completion'));
  assert.deepEqual((await complete(['webhook', ''])).candidates, ['new', 'test', 'help']);
  assert.deepEqual((await complete(['va'])).candidates, ['validate']);
});

test('every option of every command is offered after a dash', async () => {
  for (const { command, path } of commands(program)) {
    if (hidden(command)) continue;
    const offered = (await complete([...path, '--'])).candidates;
    for (const option of command.options) {
      if (option.long !== undefined && !option.hidden) assert.ok(offered.includes(option.long), `${path.join(' ')} ${option.long}`);
    }
    assert.ok(offered.includes('--help'), path.join(' '));
  }
  assert.deepEqual((await complete(['validate', '--st'])).candidates, ['--strict']);
});

test('each id-valued argument or option of the table exists in the program', () => {
  for (const key of Object.keys(idValues)) {
    const words = key.split(' ');
    const last = words.pop()!;
    let command: Command = program;
    for (const word of words) command = command.commands.find((c) => c.name() === word)!;
    assert.ok(command, key);
    const found = last.startsWith('--')
      ? command.options.some((option) => option.long === last)
      : command.registeredArguments.some((argument) => `<${argument.name()}>` === last);
    assert.ok(found, `${key} is not an argument or option of the program`);
  }
});

test('choices of options and arguments; paths left to the shell', async () => {
  assert.deepEqual((await complete(['validate', '--format', ''])).candidates, ['text', 'json', 'github', 'junit', 'sarif']);
  assert.deepEqual((await complete(['validate', '--format', 'j'])).candidates, ['json', 'junit']);
  assert.deepEqual((await complete(['completion', ''])).candidates, ['bash', 'zsh', 'fish']);
  assert.deepEqual(await complete(['validate', '']), { candidates: [], files: true });
  assert.deepEqual(await complete(['run', '--definitions', '']), { candidates: [], files: true });
  assert.deepEqual(await complete(['run', '--where', '']), { candidates: [], files: false });
});

test('ids from the definitions: of the default directory, or of --definitions on the line', async () => {
  assert.deepEqual((await complete(['run', ''])).candidates, ['crm-customers-to-erp']);
  assert.deepEqual((await complete(['discover', ''])).candidates, ['crm', 'erp']);
  assert.deepEqual((await complete(['run', '--definitions', warnings, ''])).candidates, ['crm-to-erp']);
  assert.deepEqual((await complete(['webhook', 'test', `--definitions=${warnings}`, 'wh_customerN'])).candidates, [
    'wh_customerNewest00001',
    'wh_customerNewestQuery1',
  ]);
  assert.deepEqual((await complete(['webhook', 'new', '--sync', ''])).candidates, ['crm-customers-to-erp']);
  // After the id, run takes nothing more.
  assert.deepEqual((await complete(['run', 'crm-customers-to-erp', ''])).candidates, []);
});

const scratch = mkdtempSync(join(tmpdir(), 'syncline-complete-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

test('definitions that cannot be read give no candidates, and no error', async () => {
  writeFileSync(join(scratch, 'broken.yaml'), 'kind: Sync\nid: [unclosed\n');
  assert.deepEqual((await complete(['run', ''], scratch)).candidates, []);
  assert.deepEqual((await complete(['run', ''], join(scratch, 'no-such-directory'))).candidates, []);
});
