/**
 * `syncline completion SHELL` prints the shell's completion script; the hidden
 * `syncline __complete -- WORDS…` answers it, one candidate a line. The answer never fails
 * loudly: whatever goes wrong (broken definitions, a directory that is not there) ends in fewer
 * candidates and exit 0, with nothing on standard error, since the shell shows it all mid-line.
 */
import type { Command } from 'commander';
import { defaults } from '../../settings.js';
import { completeWords } from './complete-words.js';
import { completionScript, type CompletionShell } from './completion-scripts.js';

export function completionCommand(shell: CompletionShell): number {
  process.stdout.write(completionScript(shell));
  return 0;
}

export async function completeCommand(program: Command, words: readonly string[]): Promise<number> {
  try {
    const definitions = process.env.SYNCLINE_DEFINITIONS || defaults.definitions;
    const { candidates, files } = await completeWords(program, words.length === 0 ? [''] : words, { definitions });
    process.stdout.write([...candidates, ...(files ? [':files'] : [])].map((line) => `${line}\n`).join(''));
  } catch {
    // Nothing to offer; the shell falls back to its own completion.
  }
  return 0;
}
